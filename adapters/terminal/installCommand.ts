// `/install SOURCE` and `/skills install SOURCE` in the terminal chat: a `.skill`/`.zip` on this computer (what
// skill-creator packages) or a repository, through the same runner, fetch, scan and review as in Slack or
// Discord (core.install.run). The review is the terminal's numbered choice, answered by the person at the
// keyboard: the host's operator, who could run `skillbot skills install` as well. It installs for this world.
import type { Core } from '../../src/platform/index.ts';

const INSTALL = /^\/(?:skills\s+)?install(?:\s+|$)/;

/** The SOURCE of an install command ('' when none was given), or undefined when the line is not one. */
export function parseInstallCommand(line: string): string | undefined {
  const text = line.trim();
  return INSTALL.test(text) ? text.replace(INSTALL, '').trim() : undefined;
}

/** Runs one install; the text to print (the outcome, or why nothing was installed). */
export async function installFromTerminal(core: Pick<Core, 'install'>, request: { worldId: string; chatId: string; userId: string; source: string; interactive: boolean }): Promise<string> {
  const { source } = request;
  if (source === '') return 'Usage: /install PATH.skill (a file on this computer) or /install github:owner/repo[@ref].';
  if (!request.interactive) {
    return `Not installed: a piped chat cannot answer the review. On this host: skillbot skills install ${source} --yes (it prints the same review).`;
  }
  const printed: string[] = [];
  const print = async (text: string) => void printed.push(text);
  await core.install.run(
    {
      worldId: request.worldId,
      userId: request.userId,
      chatId: request.chatId,
      atHost: true,
      replyPrivately: print,
      post: print,
      startReview: async () => request.chatId,
      fetchFile: () => Promise.reject(new Error('the terminal shares no files this way: name the path')),
      // The screen takes any length.
      profile: { limit: Number.MAX_SAFE_INTEGER },
    },
    { kind: 'install', source, pick: [] },
  );
  return printed.join('\n');
}
