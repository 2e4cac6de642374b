// Messages and @mentions: which ones start or continue a chat, each handed to the core's accept step once.
import { type AcceptResult, type Core, type IncomingMessage, isMcpCommand, type MessageFile } from '../../src/platform/index.ts';
import type { Message } from 'discord.js';
import type { Logger } from '../../src/ops/log.ts';
import { attachmentsOf } from './files.ts';
import { isFileInstall } from './installCommands.ts';
import { NO_THREAD_TEXT, threadName } from './threadNames.ts';
import { discordErrorCode, type DiscordApi } from './discordApi.ts';
import { channelFactsOf, locate, type Location, type Place, threadPlace, type ThreadDirectory, worldOf } from './places.ts';
import { isStopText, stopFromMessage, type StopDeps, tellNothingRunning } from './stop.ts';

const HINT = 'Ask me something: write your question in words (mention me in a channel, or use `/ask`).';
export const NEW_CONVERSATION_TEXT = '🆕 A fresh conversation starts here: I no longer see what we said before.';
export const NOT_QUEUED_TEXT = 'I could not take this message just now (my storage did not answer). Please send it again in a moment.';

export interface MessageDeps {
  botId: () => string | undefined;
  api: DiscordApi;
  threads: ThreadDirectory;
  /**
   * The core's accept step (`app.turns.accept`): dedupes the message id, so gateway replays and other
   * instances act on a message once, and queues the turn durably, in one atomic store step.
   */
  accept: (message: IncomingMessage | undefined, deliveryKeys: string[]) => Promise<AcceptResult>;
  log: Logger;
  /** "stop" in a chat stops its running turn at once, ahead of its queue. */
  stop: StopDeps;
  /** `/new` in a DM: the chat's history is forgotten. */
  newConversation: (chatId: string) => Promise<void>;
  /** `@skillbot skills install` with a .skill file attached: the review, then the outcome, in the thread. */
  installFile?: (place: Place, userId: string, file: MessageFile) => Promise<void>;
  /** `@skillbot /mcp attach|prompt …` (absent: no MCP server configured): run by the core, answered in the chat. */
  mcpCommand?: (place: Place, userId: string, text: string, keys: string[]) => Promise<void>;
  /** Who may use the bot, per-person limits, bots let in on purpose: asked before anything is kept. */
  access: Core['access'];
}

/**
 * The world's access rules, the person's limits or the bot guard, before the message is kept: false when it goes
 * no further (the person told privately by DM, or the channel told once of a bots' cooldown).
 */
async function admitted(message: Message, location: Location, keys: string[], how: { control: boolean; mentioned: boolean }, deps: MessageDeps): Promise<boolean> {
  const worldId = worldOf(location);
  if (worldId === undefined) return true;
  const fromBot = message.author.bot;
  const direct = location.kind === 'dm';
  const admission =
    how.control && !fromBot
      ? await deps.access.check(worldId, message.author.id, 'message', direct).then((checked) => (checked.allowed ? { kind: 'allowed' as const } : { kind: 'refused' as const, note: checked.note }))
      : await deps.access.admit({ worldId, userId: message.author.id, direct, addressed: how.mentioned || direct, key: keys[0] ?? message.id, ...(fromBot ? { botIds: [message.author.id] } : {}) });
  if (admission.kind === 'allowed') return true;
  // Remembered as handled: a replay of the delivery tells nobody twice.
  if ((await deps.accept(undefined, keys)) !== 'queued') return false;
  try {
    if (admission.kind === 'refused' || admission.kind === 'limited') await deps.api.post(await deps.api.openDm(message.author.id), { content: admission.note });
    else if (admission.kind === 'announce') await deps.api.post(message.channelId, { content: admission.note });
  } catch (error) {
    // A person whose DMs are closed to the bot is not told; nothing else changes.
    deps.log.info({ err: error, code: discordErrorCode(error), userId: message.author.id }, 'a private note could not be sent');
  }
  return false;
}

/**
 * Messages that control the chat rather than ask something: "stop" in a chat, `/new` in a DM. Returns what to do
 * for one (undefined for a question).
 */
function controlOf(message: Message, location: Location, text: string, deps: MessageDeps): (() => Promise<void>) | undefined {
  // "@skillbot stop" in a channel: no turn runs there (each works in its own thread), and no thread is opened for it.
  if (location.kind === 'channel' && isStopText(text)) return () => tellNothingRunning(message, deps.stop);
  if (location.kind !== 'dm' && location.kind !== 'botThread' && location.kind !== 'otherThread') return undefined;
  const { place } = location;
  if (isStopText(text)) return () => stopFromMessage(message, place, deps.stop);
  if (location.kind === 'dm' && text.trim().toLowerCase() === '/new') {
    return async () => {
      await deps.newConversation(place.chatId);
      await deps.api.post(message.channelId, { content: NEW_CONVERSATION_TEXT });
    };
  }
  return undefined;
}

/** The text without the bot's own mentions: `<@id>`, the older `<@!id>`, and its managed role `<@&role>`. */
export function withoutMention(content: string, botId: string, botRoleIds: string[] = []): string {
  const ids = [`!?${botId}`, ...botRoleIds.map((id) => `&${id}`)].join('|');
  return content.replace(new RegExp(`<@(?:${ids})>`, 'g'), ' ').replace(/[ \t]{2,}/g, ' ').trim();
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
 * claimed together with queueing its turn (one atomic step), so one that could not be queued is taken again if
 * redelivered.
 */
export async function onMessage(message: Message, deps: MessageDeps): Promise<void> {
  const botId = deps.botId();
  // The bot's own posts never start anything; another bot's only when the world lists it (the bot guard).
  if (!botId || message.author.id === botId || message.system) return;
  const location = await locate(channelFactsOf(message.channel, message.channelId, message.guildId), deps.threads);
  // Picking the bot in Discord's @ menu may insert its managed role instead of its user.
  const botRoles = message.mentions.roles.filter((role) => role.tags?.botId === botId).map((role) => role.id);
  const mentioned = message.mentions.users.has(botId) || botRoles.length > 0;
  const addressed = location.kind === 'dm' || location.kind === 'botThread' || (mentioned && location.kind !== 'unknown');
  if (!addressed) return;
  const keys = [`discord:message:${message.id}`];
  const text = withoutMention(message.content, botId, botRoles);
  const files = attachmentsOf(message);
  // A hint for an empty message, "stop" and `/new` are handled here, once (their keys remembered), not queued.
  const control = text === '' && files.length === 0 ? () => deps.api.post(message.channelId, { content: HINT }).then(() => undefined) : controlOf(message, location, text, deps);
  let goOn: boolean;
  try {
    goOn = await admitted(message, location, keys, { control: control !== undefined, mentioned }, deps);
  } catch (error) {
    // The counts live in the store: without it nothing is decided, and the person is asked to send it again.
    deps.log.warn({ err: error, messageId: message.id }, 'admitting a message failed');
    await deps.api.post(message.channelId, { content: NOT_QUEUED_TEXT }).catch((postError: unknown) => deps.log.debug({ err: postError }, 'saying so failed too'));
    return;
  }
  if (!goOn) return;
  if (control) {
    if ((await deps.accept(undefined, keys)) === 'queued') await control();
    return;
  }
  // A replay finds the thread opened on the message (placeOf) and is then a duplicate for accept.
  const place = await placeOf(message, location, text, deps);
  if (!place) return;
  if (deps.mcpCommand !== undefined && isMcpCommand(text)) {
    if ((await deps.accept(undefined, keys)) === 'queued') await deps.mcpCommand(place, message.author.id, text, keys);
    return;
  }
  const shared = deps.installFile ? isFileInstall(text, files) : undefined;
  if (shared && deps.installFile) {
    if ((await deps.accept(undefined, keys)) === 'queued') await deps.installFile(place, message.author.id, shared);
    return;
  }
  const accepted = await deps.accept(
    { worldId: place.worldId, chatId: place.chatId, userId: message.author.id, text, ref: message.id, ...(files.length > 0 ? { files } : {}) },
    keys,
  );
  if (accepted === 'refused') {
    await deps.api.post(place.channelId, { content: NOT_QUEUED_TEXT }).catch((postError: unknown) => deps.log.debug({ err: postError }, 'saying so failed too'));
  }
}
