// Turns per hour and tokens per day, per person and world (`limits`): counted in the store, checked before a turn.
import type { LimitSettings } from '../config/accessSettings.ts';
import type { Store } from '../store/types.ts';
import { SlidingWindows } from './slidingWindow.ts';

export const HOUR_MS = 60 * 60_000;
export const DAY_MS = 24 * HOUR_MS;

export type LimitVerdict = { ok: true } | { ok: false; limit: 'turns' | 'tokens'; retryAt: number };

export interface PersonUsage {
  turnsLastHour: number;
  tokensLastDay: number;
}

const person = (worldId: string, userId: string) => `${encodeURIComponent(worldId)}/${encodeURIComponent(userId)}`;

/** "you can ask again in N min": rounded up, at least one. */
export function limitNote(verdict: Extract<LimitVerdict, { ok: false }>, now: number): string {
  const minutes = Math.max(1, Math.ceil((verdict.retryAt - now) / 60_000));
  const what = verdict.limit === 'turns' ? 'the questions you may ask here per hour' : 'the model tokens you may use here per day';
  return `You have reached ${what}, so I did not answer this one: you can ask again in ${minutes} min.`;
}

export class PersonLimits {
  readonly #windows: SlidingWindows;

  constructor(
    store: Store,
    private readonly now: () => number = Date.now,
  ) {
    this.#windows = new SlidingWindows(store, now);
  }

  /**
   * Counts the message as a turn when both limits allow it (`id`: its delivery key, so a redelivery counts once);
   * refused, it counts nothing. Tokens are checked (spent ones are added after a turn, `addTokens`).
   */
  async admit(worldId: string, userId: string, id: string, limits: LimitSettings): Promise<LimitVerdict> {
    const key = person(worldId, userId);
    if (limits.tokensPerPersonPerDay !== undefined) {
      const tokens = await this.#windows.state(`limit-tokens:${key}`, DAY_MS, limits.tokensPerPersonPerDay);
      if (tokens.retryAt !== undefined) return { ok: false, limit: 'tokens', retryAt: tokens.retryAt };
    }
    const turns = await this.#windows.take(`limit-turns:${key}`, id, 1, HOUR_MS, limits.turnsPerPersonPerHour);
    if (!turns.ok) return { ok: false, limit: 'turns', retryAt: turns.retryAt ?? this.now() + HOUR_MS };
    return { ok: true };
  }

  async addTokens(worldId: string, userId: string, turnId: string, tokens: number): Promise<void> {
    if (tokens <= 0) return;
    await this.#windows.take(`limit-tokens:${person(worldId, userId)}`, turnId, tokens, DAY_MS);
  }

  async usage(worldId: string, userId: string): Promise<PersonUsage> {
    const key = person(worldId, userId);
    const [turns, tokens] = await Promise.all([this.#windows.state(`limit-turns:${key}`, HOUR_MS), this.#windows.state(`limit-tokens:${key}`, DAY_MS)]);
    return { turnsLastHour: turns.total, tokensLastDay: tokens.total };
  }
}
