// What was said in a Discord thread, DM or channel before a message: read with GET /channels/{id}/messages.
import { type ContextMessage, type ContextRequest, type IncomingMessage, parseChatId, parseWorldId } from '../../src/platform/index.ts';
import type { DiscordApi, ListedMessage } from './discordApi.ts';

/** A channel mention that asks about what was said before it ("summarise the above"). */
const ASKS_ABOUT_CHANNEL = /\b(above|earlier|so far|previous (messages|discussion)|this (conversation|discussion|channel))\b/i;

/**
 * The context of a Discord message. A thread the bot opened on the message itself (a mention in a channel) has
 * nothing before it: the channel is read instead, when the message asks about it. In a thread it was mentioned
 * in, or its own thread, the messages before it (only those since its last reply once the chat is its own).
 */
export async function readDiscordContext(api: DiscordApi, botId: string | undefined, message: IncomingMessage, request: ContextRequest): Promise<ContextMessage[]> {
  const ref = message.ref;
  if (!ref) return [];
  const { worldId, threadId } = parseChatId(message.chatId);
  // A DM holds nothing but the person's turns and the bot's answers, which the history has (and `/new` forgets).
  if (worldId.startsWith('discord:@me:')) return [];
  let channelId = threadId;
  if (threadId === ref) {
    const world = parseWorldId(worldId);
    if (request.joined || world.platform !== 'discord' || !ASKS_ABOUT_CHANNEL.test(message.text)) return [];
    channelId = world.channelId;
  }
  let listed = (await api.messagesBefore(channelId, ref, request.limit)).reverse();
  if (request.joined) listed = listed.slice(listed.findLastIndex((entry) => entry.author.id === botId) + 1);
  return listed.filter((entry) => entry.content !== '' || entry.attachments.length > 0).map((entry) => toContext(entry, botId));
}

function toContext(entry: ListedMessage, botId: string | undefined): ContextMessage {
  const self = entry.author.id === botId;
  const files = entry.attachments.map((file) => `[shared a file: ${file.filename}]`);
  return {
    author: entry.member?.nick ?? entry.author.global_name ?? entry.author.username,
    authorKind: self ? 'self' : entry.author.bot ? 'bot' : 'person',
    at: Date.parse(entry.timestamp),
    text: [entry.content, ...files].filter(Boolean).join(' '),
    ...(self || entry.author.bot ? {} : { userId: entry.author.id }),
  };
}
