// Bots let in on purpose (`bots`): a listed bot's messages start turns, at most so many a minute per channel,
// then a cooldown announced once. Two bots answering each other stop here.
import type { BotSettings } from '../config/accessSettings.ts';
import type { Store } from '../store/types.ts';
import { SlidingWindows } from './slidingWindow.ts';

/** `ignored`: unlisted, or cooling down; `announce`: the cooldown starts now (say so once in the channel). */
export type BotVerdict = { kind: 'allowed' } | { kind: 'ignored' } | { kind: 'announce'; note: string };

const MINUTE_MS = 60_000;

export function cooldownNote(settings: BotSettings): string {
  return `Bots have started ${settings.maxTurnsPerMinute} turns here within a minute, so I am not answering bots in this channel for ${settings.cooldownS} s.`;
}

export class BotGuard {
  readonly #windows: SlidingWindows;

  constructor(
    private readonly store: Store,
    now: () => number = Date.now,
  ) {
    this.#windows = new SlidingWindows(store, now);
  }

  /** `ids`: every id the platform gives the author (Slack: bot id and bot user id). `id`: the message's delivery key. */
  async admit(worldId: string, ids: readonly string[], id: string, settings: BotSettings): Promise<BotVerdict> {
    if (!ids.some((candidate) => settings.allow.includes(candidate))) return { kind: 'ignored' };
    const cooldownKey = `bot-cooldown:${encodeURIComponent(worldId)}`;
    if ((await this.store.get('usage', cooldownKey)) !== undefined) return { kind: 'ignored' };
    const taken = await this.#windows.take(`bot-turns:${encodeURIComponent(worldId)}`, id, 1, MINUTE_MS, settings.maxTurnsPerMinute);
    if (taken.ok) return { kind: 'allowed' };
    // One instance wins the cooldown's claim, and only it announces.
    const won = await this.store.claim('usage', cooldownKey, { status: 'cooling' }, settings.cooldownS * 1000);
    return won ? { kind: 'announce', note: cooldownNote(settings) } : { kind: 'ignored' };
  }
}
