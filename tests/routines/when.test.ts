// WHEN as people write it: phrases and 5-field cron expressions in the world's time zone; mistakes named.
import { describe, expect, it } from 'vitest';
import { nextTick, parseWhen, ticksBetween } from '../../src/routines/when.ts';

const NOW = Date.parse('2026-11-29T04:30:00Z'); // a Sunday

function next(text: string, timezone = 'UTC'): string | undefined {
  const parsed = parseWhen(text, timezone, NOW);
  if (!parsed.ok) throw new Error(parsed.error);
  const at = nextTick(parsed.schedule, NOW);
  return at === undefined ? undefined : new Date(at).toISOString();
}

describe('parseWhen', () => {
  it('reads the phrases and cron expressions people write, in the world time zone', () => {
    expect(next('every minute')).toBe('2026-11-29T04:31:00.000Z');
    expect(next('every hour')).toBe('2026-11-29T05:00:00.000Z');
    expect(next('every weekday at 9:00')).toBe('2026-11-30T09:00:00.000Z');
    expect(next('every monday 10:00', 'Europe/Paris')).toBe('2026-11-30T09:00:00.000Z');
    expect(next('in 30 minutes')).toBe('2026-11-29T05:00:00.000Z');
    expect(next('0 9 * * 1-5', 'America/New_York')).toBe('2026-11-30T14:00:00.000Z');
  });

  it('names what is wrong with a WHEN it cannot read', () => {
    const bad = (text: string) => {
      const parsed = parseWhen(text, 'UTC', NOW);
      return parsed.ok ? '' : parsed.error;
    };
    expect(bad('every blue moon')).toMatch(/^"every blue moon" is not a schedule I know\. Use `every minute`/);
    expect(bad('0 0 9 * * 1')).toMatch(/not a schedule I know/);
    expect(bad('61 * * * *')).toMatch(/^"61 \* \* \* \*" is not a valid cron expression/);
    expect(bad('every monday 25:00')).toMatch(/not a schedule I know/);
  });

  it('lists the moments of a window, bounded', () => {
    const parsed = parseWhen('every minute', 'UTC', NOW);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(ticksBetween(parsed.schedule, NOW, NOW + 3 * 60_000)).toEqual([NOW + 60_000, NOW + 120_000, NOW + 180_000]);
    expect(ticksBetween(parsed.schedule, NOW, NOW + 10 * 24 * 3_600_000)).toHaveLength(100);
  });
});
