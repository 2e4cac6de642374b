// `/install SOURCE` and `/skills install SOURCE` in the terminal chat: a `.skill`/`.zip` on this computer (what
// skill-creator packages) or a repository, through the same fetch, scan and review as in Slack or Discord. The
// review is the terminal's numbered choice, answered by the person at the keyboard: the host's operator, who could
// run `skillbot skills install` as well. It installs for this terminal's world.
import { type Core, namesLocalFile, readLocalPackage } from '../../src/platform/index.ts';

const INSTALL = /^\/(?:skills\s+)?install(?:\s+|$)/;

/** The SOURCE of an install command ('' when none was given), or undefined when the line is not one. */
export function parseInstallCommand(line: string): string | undefined {
  const text = line.trim();
  return INSTALL.test(text) ? text.replace(INSTALL, '').trim() : undefined;
}

/** Runs one install; the text to print (the outcome, or why nothing was installed). */
export async function installFromTerminal(core: Core, request: { worldId: string; chatId: string; userId: string; source: string; interactive: boolean }): Promise<string> {
  const { source } = request;
  if (source === '') return 'Usage: /install PATH.skill (a file on this computer) or /install github:owner/repo[@ref].';
  if (!request.interactive) {
    return `Not installed: a piped chat cannot answer the review. On this host: skillbot skills install ${source} --yes (it prints the same review).`;
  }
  const asked = { worldId: request.worldId, chatId: request.chatId, requesterId: request.userId, atHost: true };
  if (!namesLocalFile(source)) return (await core.install.install({ ...asked, source })).text;
  const local = await readLocalPackage(source, core.settings.install.maxMB * 1024 * 1024);
  if (!local.ok) return `Cannot install: ${local.error}.`;
  return (await core.install.install({ ...asked, source: '', file: { name: local.name, bytes: local.bytes } })).text;
}
