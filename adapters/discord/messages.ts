import type { Message } from 'discord.js';
import type { Logger } from '../../src/log.ts';
import type { Store } from '../../src/store/types.ts';
import { discordErrorCode, type DiscordApi } from './discordApi.ts';
import { ChannelOutlet } from './outlets.ts';
import { channelFactsOf, locate, type Place, threadPlace, type ThreadDirectory } from './places.ts';
import type { TurnRunner } from './turns.ts';

/** Gateway resumes replay events: a message id is handled once, remembered this long. */
export const DEDUPE_TTL_MS = 60 * 60_000;

const HINT = 'Ask me something: write your question in words (mention me in a channel, or use `/ask`).';
export const NO_THREAD_TEXT = 'I could not open a thread here. I need the "Create Public Threads" and "Send Messages in Threads" permissions in this channel.';

export interface MessageDeps {
  botId: () => string | undefined;
  api: DiscordApi;
  threads: ThreadDirectory;
  turns: TurnRunner;
  store: Store;
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

/** Claims an event id so that it is handled once, across replays and instances. */
export function firstTime(store: Store, key: string): Promise<boolean> {
  return store.claim('dedupe', `discord:${key}`, Date.now(), DEDUPE_TTL_MS);
}

async function openThread(message: Message, guildId: string, text: string, deps: MessageDeps): Promise<Place | undefined> {
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

/**
 * A message from a person. A DM is always its channel's chat; a message in a bot thread continues that chat
 * without a mention; an @mention in a text channel opens a public thread on the message and works there; an
 * @mention in someone else's thread adopts that thread. Everything else is not for the bot.
 */
export async function onMessage(message: Message, deps: MessageDeps): Promise<void> {
  const botId = deps.botId();
  if (!botId || message.author.bot || message.system) return;
  const location = await locate(channelFactsOf(message.channel, message.channelId, message.guildId), deps.threads);
  // Picking the bot in Discord's @ menu may insert its managed role instead of its user.
  const botRoles = message.mentions.roles.filter((role) => role.tags?.botId === botId).map((role) => role.id);
  const mentioned = message.mentions.users.has(botId) || botRoles.length > 0;
  const addressed = location.kind === 'dm' || location.kind === 'botThread' || (mentioned && location.kind !== 'unknown');
  if (!addressed || !(await firstTime(deps.store, `message:${message.id}`))) return;
  const text = withoutMention(message.content, botId, botRoles);
  if (text === '') {
    await deps.api.post(message.channelId, { content: HINT });
    return;
  }
  let place: Place | undefined;
  if (location.kind === 'channel') {
    place = await openThread(message, location.guildId, text, deps);
  } else if (location.kind === 'otherThread') {
    place = location.place;
    await deps.threads.remember(place, message.author.id);
  } else if (location.kind === 'dm' || location.kind === 'botThread') {
    place = location.place;
  }
  if (!place) return;
  deps.turns.start(
    { worldId: place.worldId, chatId: place.chatId, userId: message.author.id, text },
    new ChannelOutlet(deps.api, place.channelId, deps.log),
  );
}
