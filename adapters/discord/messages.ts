import type { DeliveryDedupe } from '../../src/chats/deliveryDedupe.ts';
import type { Message } from 'discord.js';
import type { Logger } from '../../src/log.ts';
import type { IncomingMessage } from '../../src/platform.ts';
import { discordErrorCode, type DiscordApi } from './discordApi.ts';
import { channelFactsOf, locate, type Location, type Place, threadPlace, type ThreadDirectory } from './places.ts';

const HINT = 'Ask me something: write your question in words (mention me in a channel, or use `/ask`).';
export const NO_THREAD_TEXT = 'I could not open a thread here. I need the "Create Public Threads" and "Send Messages in Threads" permissions in this channel.';
export const NOT_QUEUED_TEXT = 'I could not take this message just now (my storage did not answer). Please send it again in a moment.';

export interface MessageDeps {
  botId: () => string | undefined;
  api: DiscordApi;
  threads: ThreadDirectory;
  /** Queues the turn durably (`app.dispatcher.submit`); resolves once it is in the store. */
  submit: (message: IncomingMessage) => Promise<void>;
  /** Message ids claimed in the store, so gateway replays and other instances act on a message once. */
  dedupe: DeliveryDedupe;
  log: Logger;
}

/** The text without the bot's own mentions: `<@id>`, the older `<@!id>`, and its managed role `<@&role>`. */
export function withoutMention(content: string, botId: string, botRoleIds: string[] = []): string {
  const ids = [`!?${botId}`, ...botRoleIds.map((id) => `&${id}`)].join('|');
  return content.replace(new RegExp(`<@(?:${ids})>`, 'g'), ' ').replace(/[ \t]{2,}/g, ' ').trim();
}

/** A thread name from the question: its first line, mentions out, at most 80 characters. */
export function threadName(text: string, fallback: string): string {
  const line = (text.split('\n').find((candidate) => candidate.trim() !== '') ?? '').replace(/<[@#][!&]?\d+>/g, '').replace(/\s+/g, ' ').trim();
  const name = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return name || fallback;
}

async function openThread(message: Message, guildId: string, text: string, deps: MessageDeps): Promise<Place | undefined> {
  // A thread opened on a message takes its id: a redelivery of a message whose turn could not be queued finds it.
  const opened = await deps.threads.find(message.id);
  if (opened) return opened;
  try {
    const threadId = await deps.api.startThread(message.channelId, message.id, threadName(text, `Question from ${message.author.username}`));
    const place = threadPlace(guildId, message.channelId, threadId);
    await deps.threads.remember(place, message.author.id);
    return place;
  } catch (error) {
    deps.log.warn({ err: error, code: discordErrorCode(error), channelId: message.channelId }, 'opening a thread failed');
    await deps.api.post(message.channelId, { content: NO_THREAD_TEXT });
    return undefined;
  }
}

/** Where a message addressed to the bot is answered: undefined when that is nowhere (it was told why). */
async function placeOf(message: Message, location: Location, text: string, deps: MessageDeps): Promise<Place | undefined> {
  switch (location.kind) {
    case 'channel':
      return openThread(message, location.guildId, text, deps);
    case 'otherThread':
      await deps.threads.remember(location.place, message.author.id);
      return location.place;
    case 'dm':
    case 'botThread':
      return location.place;
    default:
      return undefined;
  }
}

/**
 * A message from a person. A DM is always its channel's chat; a message in a bot thread continues that chat
 * without a mention; an @mention in a text channel opens a public thread on the message and works there; an
 * @mention in someone else's thread adopts that thread. Everything else is not for the bot. The message id is
 * marked handled only once its turn is queued, so one that could not be queued is taken again if redelivered.
 */
export async function onMessage(message: Message, deps: MessageDeps): Promise<void> {
  const botId = deps.botId();
  if (!botId || message.author.bot || message.system) return;
  const location = await locate(channelFactsOf(message.channel, message.channelId, message.guildId), deps.threads);
  // Picking the bot in Discord's @ menu may insert its managed role instead of its user.
  const botRoles = message.mentions.roles.filter((role) => role.tags?.botId === botId).map((role) => role.id);
  const mentioned = message.mentions.users.has(botId) || botRoles.length > 0;
  const addressed = location.kind === 'dm' || location.kind === 'botThread' || (mentioned && location.kind !== 'unknown');
  if (!addressed) return;
  const claim = await deps.dedupe.take([`discord:message:${message.id}`]);
  if (!claim) return;
  const text = withoutMention(message.content, botId, botRoles);
  let place: Place | undefined;
  try {
    if (text === '') {
      await deps.api.post(message.channelId, { content: HINT });
    } else {
      place = await placeOf(message, location, text, deps);
      if (place) await deps.submit({ worldId: place.worldId, chatId: place.chatId, userId: message.author.id, text });
    }
  } catch (error) {
    await claim.abandon().catch((abandonError: unknown) => deps.log.warn({ err: abandonError, messageId: message.id }, 'releasing a message claim failed'));
    if (place) await deps.api.post(place.channelId, { content: NOT_QUEUED_TEXT }).catch((postError: unknown) => deps.log.debug({ err: postError }, 'saying so failed too'));
    throw error;
  }
  await claim.done();
}
