// `/skills install SOURCE`, `/skills installed`, `/skills update ID`, `/skills remove ID`, and in a thread
// `@skillbot skills install` with a .skill file shared in the message. Translation only: the core's Installer
// fetches, scans, asks the installers on a card in the thread, and pins; this posts where it was asked.
import type { Core, InstallCommand, MessageFile } from '../../src/platform/index.ts';
import { person } from './approvalCard.ts';
import { downloadSlackFile } from './files.ts';
import { slackChatId, slackWorldId } from './ids.ts';
import { safeText } from './slackText.ts';
import type { Logger } from '../../src/ops/log.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

/** What the install commands use of the Slack side (a part of the turns' deps). */
export interface InstallDeps {
  core: Core;
  api: SlackApi;
  logger: Logger;
}

export interface InstallPlace {
  teamId: string;
  channelId: string;
  userId: string;
  /** In a thread already (a mention); undefined: a slash command, which starts one. */
  threadTs?: string;
  files?: MessageFile[];
}

/** The answer to give only to the person (a slash command's ephemeral reply), or undefined when posted. */
export async function runInstallCommand(deps: InstallDeps, place: InstallPlace, command: InstallCommand): Promise<string | undefined> {
  const { core } = deps;
  const worldId = slackWorldId(place.teamId, place.channelId);
  if (command.kind === 'usage') return command.text;
  if (command.kind === 'installed') return safeText(core.install.listText(worldId));
  if (command.kind === 'remove') {
    const removed = await core.install.remove({ worldId, chatId: slackChatId(worldId, place.threadTs ?? '0'), requesterId: place.userId, id: command.id });
    if (removed.privately === true || !removed.ok) return safeText(removed.text);
    await deps.api.post({ channel: place.channelId, ...(place.threadTs ? { threadTs: place.threadTs } : {}), text: `${safeText(removed.text)} (by ${person(place.userId)})` });
    return undefined;
  }
  const shared = command.kind === 'install' ? (place.files ?? []).find((file) => /\.(skill|zip)$/i.test(file.name)) : undefined;
  if (command.kind === 'install' && command.source === '' && shared === undefined) return safeText('Name a source, or share a .skill file in a thread and mention me with `skills install`.');
  const picked = command.kind === 'install' && command.pick.length > 0 ? ` (only ${command.pick.map((name) => `\`${safeText(name)}\``).join(', ')})` : '';
  const what = command.kind === 'update' ? `an update of \`${safeText(command.id)}\`` : `installing \`${safeText(shared?.name ?? command.source)}\`${picked}`;
  let threadTs = place.threadTs;
  if (threadTs === undefined) {
    threadTs = await deps.api.post({ channel: place.channelId, text: `${person(place.userId)} asked for ${what}: fetching and scanning it; the review follows in this thread.` });
  }
  const chatId = slackChatId(worldId, threadTs);
  const requested = { worldId, chatId, requesterId: place.userId };
  let file: { name: string; bytes: Uint8Array } | undefined;
  if (shared !== undefined) {
    const token = core.settings.slack.botToken ?? '';
    const maxBytes = core.settings.install.maxMB * 1024 * 1024;
    try {
      file = { name: shared.name, bytes: await downloadSlackFile(shared, { token, maxBytes, ...(core.settings.slack.apiUrl ? { apiUrl: core.settings.slack.apiUrl } : {}) }) };
    } catch (error) {
      await deps.api.post({ channel: place.channelId, threadTs, text: `I could not download ${safeText(shared.name)} (${safeText((error as Error).message)}).` });
      return undefined;
    }
  }
  const result =
    command.kind === 'update'
      ? await core.install.update({ ...requested, id: command.id })
      : await core.install.install({ ...requested, source: command.source, pick: command.pick, ...(file ? { file } : {}) });
  await postLong(deps, place.channelId, threadTs, result.text);
  return undefined;
}

/** A result may carry a whole review (a refusal shows why): split at line ends into messages Slack accepts. */
async function postLong(deps: InstallDeps, channel: string, threadTs: string, text: string): Promise<void> {
  const parts: string[] = [];
  let current = '';
  for (const line of safeText(text).split('\n')) {
    if (current.length + line.length + 1 > 3500 && current !== '') {
      parts.push(current);
      current = '';
    }
    current += `${current === '' ? '' : '\n'}${line}`;
  }
  if (current !== '') parts.push(current);
  for (const part of parts) {
    await deps.api.post({ channel, threadTs, text: part }).catch((error: unknown) => deps.logger.warn({ err: slackErrorCode(error) }, 'posting an install result failed'));
  }
}
