// `/skills install SOURCE`, `/skills installed`, `/skills update ID`, `/skills remove ID`, and in a thread
// `@skillbot skills install` with a .skill file shared in the message. The core runs the command and words it
// (core.install.run); this is the Slack place it answers in: ephemeral answers, a root message whose thread holds
// the review, posts in that thread, the shared file downloaded with the bot token.
import type { Core, InstallCommand, InstallPlace, MessageFile } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { downloadSlackFile } from './files.ts';
import { slackChatId, slackThreadOf, slackWorldId } from './ids.ts';
import { SLACK_MESSAGES } from './messageLimits.ts';
import { safeText } from './slackText.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

/** What the install commands use of the Slack side (a part of the turns' deps). */
export interface InstallDeps {
  core: Pick<Core, 'install' | 'settings'>;
  api: SlackApi;
  logger: Logger;
}

export interface SlackInstallPlace {
  teamId: string;
  channelId: string;
  userId: string;
  /** In a thread already (a mention); undefined: a slash command, which starts one. */
  threadTs?: string;
  files?: MessageFile[];
}

/** The answer to give only to the person (a slash command's ephemeral reply), or undefined when none. */
export async function runInstallCommand(deps: InstallDeps, where: SlackInstallPlace, command: InstallCommand): Promise<string | undefined> {
  const worldId = slackWorldId(where.teamId, where.channelId);
  const { botToken, apiUrl } = deps.core.settings.slack;
  let privately: string | undefined;
  const post = async (text: string, chatId: string | undefined) => {
    const threadTs = chatId === undefined ? where.threadTs : slackThreadOf(chatId)?.threadTs;
    await deps.api.post({ channel: where.channelId, ...(threadTs ? { threadTs } : {}), text }).catch((error: unknown) => deps.logger.warn({ err: slackErrorCode(error) }, 'posting an install result failed'));
  };
  const place: InstallPlace = {
    worldId,
    userId: where.userId,
    ...(where.threadTs === undefined ? {} : { chatId: slackChatId(worldId, where.threadTs) }),
    ...(where.files ? { files: where.files } : {}),
    replyPrivately: async (text) => void (privately = text),
    post,
    // In a thread (a mention) the review follows there, unannounced; a slash command's gets a root message.
    startReview: async (note) => slackChatId(worldId, where.threadTs ?? (await deps.api.post({ channel: where.channelId, text: note }))),
    fetchFile: (file, maxBytes) => downloadSlackFile(file, { token: botToken ?? '', maxBytes, ...(apiUrl ? { apiUrl } : {}) }),
    // A whole review is posted: no cut after ten messages.
    profile: { limit: SLACK_MESSAGES.limit, ...(SLACK_MESSAGES.keepTogether ? { keepTogether: SLACK_MESSAGES.keepTogether } : {}) },
    literal: safeText,
  };
  await deps.core.install.run(place, command);
  return privately;
}
