// Discord's places as skillbot ids: a channel or DM is a world, a thread or DM a chat.
import type { Channel } from 'discord.js';
import { type AdapterState, chatId, discordWorldId, parseChatId } from '../../src/platform/index.ts';
import { z } from 'zod';

/** Where a conversation lives: its world (settings), its chat (history) and the channel the bot writes in. */
export interface Place {
  worldId: string;
  chatId: string;
  channelId: string;
}

/** A DM channel is its own world (`discord:@me:<channel>`) holding one chat (`…/<channel>`). */
export function dmPlace(dmChannelId: string): Place {
  const worldId = discordWorldId('@me', dmChannelId);
  return { worldId, chatId: chatId(worldId, dmChannelId), channelId: dmChannelId };
}

/** A thread's world is its parent text channel: settings come from there. */
export function threadPlace(guildId: string, parentId: string, threadId: string): Place {
  const worldId = discordWorldId(guildId, parentId);
  return { worldId, chatId: chatId(worldId, threadId), channelId: threadId };
}

/** The channel a chat's messages go to: its thread, or its DM channel. */
export function channelOfChat(id: string): string {
  return parseChatId(id).threadId;
}

const botThread = z.object({
  worldId: z.string(),
  chatId: z.string(),
  channelId: z.string(),
  openedBy: z.string(),
  openedAt: z.number(),
});

/**
 * The threads the bot works in, kept in the store's `chats` namespace so that after a restart (or on another
 * instance) a message in one of them still continues its chat without a mention.
 */
export class ThreadDirectory {
  constructor(private readonly store: AdapterState) {}

  async remember(place: Place, openedBy: string): Promise<void> {
    await this.store.set(`discord:${place.channelId}`, { ...place, openedBy, openedAt: Date.now() });
  }

  async find(threadId: string): Promise<Place | undefined> {
    const parsed = botThread.safeParse(await this.store.get(`discord:${threadId}`));
    return parsed.success ? { worldId: parsed.data.worldId, chatId: parsed.data.chatId, channelId: parsed.data.channelId } : undefined;
  }
}

/** What an event tells about its channel (discord.js may know a thread's parent only when it is cached). */
export interface ChannelFacts {
  channelId: string;
  guildId: string | null;
  isThread: boolean;
  parentId: string | null;
  /** False only when the channel is cached and is not a thread: then no store lookup is needed. */
  maybeThread: boolean;
}

/** The facts of a message's or interaction's channel (it may be null or partial when not cached). */
export function channelFactsOf(channel: Channel | null, channelId: string, guildId: string | null): ChannelFacts {
  const thread = channel?.isThread() ? channel : undefined;
  const maybeThread = channel === null || channel.partial || thread !== undefined;
  return { channelId, guildId, isThread: thread !== undefined, parentId: thread?.parentId ?? null, maybeThread };
}

export type Location =
  | { kind: 'dm'; place: Place }
  | { kind: 'botThread'; place: Place }
  /** A thread the bot does not keep yet; it adopts it when addressed there. */
  | { kind: 'otherThread'; place: Place }
  /** A text channel: a chat there starts with a new thread. */
  | { kind: 'channel'; worldId: string; guildId: string; channelId: string }
  | { kind: 'unknown' };

export async function locate(facts: ChannelFacts, threads: ThreadDirectory): Promise<Location> {
  if (facts.guildId === null) return { kind: 'dm', place: dmPlace(facts.channelId) };
  // Most guild messages are plain channel chatter: a cached text channel needs no store read.
  const known = facts.maybeThread ? await threads.find(facts.channelId) : undefined;
  if (known) return { kind: 'botThread', place: known };
  if (facts.isThread) {
    return facts.parentId ? { kind: 'otherThread', place: threadPlace(facts.guildId, facts.parentId, facts.channelId) } : { kind: 'unknown' };
  }
  return { kind: 'channel', worldId: discordWorldId(facts.guildId, facts.channelId), guildId: facts.guildId, channelId: facts.channelId };
}

/** The world whose settings apply at a location (for /skills, autocomplete and approval clicks). */
export function worldOf(location: Location): string | undefined {
  switch (location.kind) {
    case 'channel':
      return location.worldId;
    case 'unknown':
      return undefined;
    default:
      return location.place.worldId;
  }
}
