// Per-world daily token budgets (`dailyTokenBudget` in SKILLBOT_CONFIG): what a world spent today, in the store.
import type { Store } from '../store/types.ts';

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

const DAY_MS = 86_400_000;

/** The UTC day a moment falls in, `YYYY-MM-DD`: budgets reset at 00:00 UTC on every instance alike. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** All four kinds count: cache reads are cheaper, but they are spend an operator wants bounded too. */
export function totalTokens(usage: TokenCounts): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheCreation;
}

/** The sentence a person reads instead of an answer once the world's budget is spent. */
export function budgetSpentText(budget: number): string {
  return (
    `This channel has used its daily budget of ${budget.toLocaleString('en-US')} model tokens, so I cannot answer until ` +
    'it resets at 00:00 UTC. Your message is not queued: send it again then, or ask an operator to raise `dailyTokenBudget`.'
  );
}

/**
 * A world's spend per UTC day, kept in the store (`usage` namespace, `spend:<world>/<day>`, apart from the per-chat
 * totals) so every instance counts against one total. Adding is one atomic store step (`increment`): instances
 * finishing turns of one world at the same instant each count.
 */
export class TokenBudgets {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  async spentToday(worldId: string): Promise<number> {
    return (await this.store.get<number>('usage', this.key(worldId))) ?? 0;
  }

  /** Whether the world may start another turn today. */
  async allows(worldId: string, budget: number | undefined): Promise<boolean> {
    if (budget === undefined) return true;
    return (await this.spentToday(worldId)) < budget;
  }

  async add(worldId: string, usage: TokenCounts): Promise<void> {
    const tokens = totalTokens(usage);
    if (tokens === 0) return;
    // Kept two days from the day's first turn: long enough to read yesterday's total, then gone by itself.
    await this.store.increment('usage', this.key(worldId), tokens, 2 * DAY_MS);
  }

  private key(worldId: string): string {
    return `spend:${encodeURIComponent(worldId)}/${utcDay(this.now())}`;
  }
}
