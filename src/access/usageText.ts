// `/usage`: a person's own figures in a world, against its limits.
import type { LimitSettings } from '../config/accessSettings.ts';
import type { PersonUsage } from './personLimits.ts';

const n = (value: number) => value.toLocaleString('en-US');

export function usageText(usage: PersonUsage, limits: LimitSettings): string {
  const turns = limits.turnsPerPersonPerHour === undefined ? 'no limit' : `limit ${n(limits.turnsPerPersonPerHour)}`;
  const tokens = limits.tokensPerPersonPerDay === undefined ? 'no limit' : `limit ${n(limits.tokensPerPersonPerDay)}`;
  return [
    'Your use of skillbot here:',
    `• questions in the last 60 min: ${n(usage.turnsLastHour)} (${turns})`,
    `• model tokens in the last 24 h: ${n(usage.tokensLastDay)} (${tokens})`,
  ].join('\n');
}
