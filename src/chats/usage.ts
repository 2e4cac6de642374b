import type { Usage } from '@anthropic-ai/sdk/resources/messages';

/** Token counts of a turn or of a whole chat. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
  turns: number;
}

export const emptyUsage = (): UsageTotals => ({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0, turns: 0 });

export function addApiUsage(totals: UsageTotals, usage: Usage | undefined): void {
  if (!usage) return;
  totals.input += usage.input_tokens ?? 0;
  totals.output += usage.output_tokens ?? 0;
  totals.cacheRead += usage.cache_read_input_tokens ?? 0;
  totals.cacheCreation += usage.cache_creation_input_tokens ?? 0;
}

export function mergeUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheCreation: a.cacheCreation + b.cacheCreation,
    turns: a.turns + b.turns,
  };
}

/** Share of prompt tokens served from the cache. */
export function cacheReadShare(totals: UsageTotals): number {
  const prompt = totals.input + totals.cacheRead + totals.cacheCreation;
  return prompt === 0 ? 0 : totals.cacheRead / prompt;
}

export function formatUsage(totals: UsageTotals): string {
  const share = (cacheReadShare(totals) * 100).toFixed(1);
  return (
    `${totals.turns} turns: ${totals.input} input, ${totals.output} output, ${totals.cacheRead} cache-read, ` +
    `${totals.cacheCreation} cache-creation tokens (${share}% of prompt tokens from cache)`
  );
}
