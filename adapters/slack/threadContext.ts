// What was said in a Slack thread (or channel) before a message: read with conversations.replies/history.
import type { AdapterState, ContextMessage, ContextRequest, IncomingMessage } from '../../src/platform/index.ts';
import { slackThreadOf } from './ids.ts';
import { unescapeSlack } from './payloads.ts';
import type { SlackApi, SlackHistoryMessage } from './slackApi.ts';

/** A top-level mention that asks about what was said before it in the channel ("summarise the above"). */
const ASKS_ABOUT_CHANNEL = /\b(above|earlier|so far|previous (messages|discussion)|this (conversation|discussion|channel))\b/i;
/** Subtypes that are still something someone said. */
const SAID = new Set(['thread_broadcast', 'file_share', 'bot_message', 'me_message']);

/** As long as the bot remembers its threads. */
const SEEN_KEEP_MS = 90 * 24 * 60 * 60 * 1000;

export interface SlackSelf {
  botUserId: string;
  botId: string;
}

function isSelf(message: SlackHistoryMessage, self: SlackSelf): boolean {
  return message.user === self.botUserId || message.bot_id === self.botId;
}

/**
 * The context of a Slack message: in a thread, the replies before it (only those since the bot's last reply when
 * the chat is already the bot's); at the top of a channel, the channel's messages before it when the message
 * asks about them. Names come from users.info, once per person per turn.
 */
export async function readSlackContext(
  api: SlackApi,
  store: AdapterState,
  self: SlackSelf,
  message: IncomingMessage,
  request: ContextRequest,
): Promise<ContextMessage[]> {
  const thread = slackThreadOf(message.chatId);
  const ref = message.ref;
  if (!thread || !ref) return [];
  let raw: SlackHistoryMessage[];
  if (ref === thread.threadTs) {
    if (request.joined || !ASKS_ABOUT_CHANNEL.test(message.text)) return [];
    raw = (await api.channelMessages(thread.channelId, ref, request.limit)).reverse();
  } else {
    // In its own thread, only what came after the message of its previous turn: a long thread is not read whole
    // on every turn (Slack pages from the oldest).
    const seenKey = `slack-context-seen:${message.chatId}`;
    const oldest = request.joined ? await store.get<string>(seenKey) : undefined;
    raw = await api.threadMessages(thread.channelId, thread.threadTs, ref, oldest !== undefined && Number(oldest) < Number(ref) ? oldest : undefined);
    await store.set(seenKey, ref, SEEN_KEEP_MS);
  }
  let said = raw.filter((entry) => entry.ts !== undefined && Number(entry.ts) < Number(ref) && (entry.subtype === undefined || SAID.has(entry.subtype)));
  if (request.joined) {
    const lastOwn = said.findLastIndex((entry) => isSelf(entry, self));
    said = said.slice(lastOwn + 1);
  }
  said = said.slice(-request.limit);
  const names = new Map<string, Promise<string>>();
  const nameOf = (userId: string) => {
    if (!names.has(userId)) names.set(userId, api.displayName(userId).catch(() => userId));
    return names.get(userId) ?? Promise.resolve(userId);
  };
  return Promise.all(
    said.map(async (entry): Promise<ContextMessage> => {
      const self_ = isSelf(entry, self);
      const bot = !self_ && (entry.bot_id !== undefined || entry.subtype === 'bot_message');
      const author = self_ ? 'skillbot' : bot ? (entry.bot_profile?.name ?? entry.username ?? 'a bot') : await nameOf(entry.user ?? 'someone');
      const files = (entry.files ?? []).map((file) => `[shared a file: ${file.name ?? 'unnamed'}]`);
      const text = [unescapeSlack(entry.text ?? ''), ...files].filter(Boolean).join(' ');
      return { author, authorKind: self_ ? 'self' : bot ? 'bot' : 'person', at: Number(entry.ts) * 1000, text, ...(entry.user && !bot ? { userId: entry.user } : {}) };
    }),
  );
}
