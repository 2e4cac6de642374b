// WHEN, as people write it: a 5-field cron expression or a plain phrase, read in the world's time zone.
import { Cron } from 'croner';

/** When a routine runs: a cron expression (repeating) or one moment (epoch ms). */
export type Schedule = { kind: 'cron'; cron: string; timezone: string } | { kind: 'once'; at: number };

export type ParsedWhen = { ok: true; schedule: Schedule } | { ok: false; error: string };

const DAYS: Record<string, number> = { sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6 };
const UNITS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export const WHEN_EXAMPLES = '`every minute`, `every hour`, `every day at 9:00`, `every weekday at 9:00`, `every monday 10:00`, `in 30 minutes`, or a cron expression such as `0 9 * * 1-5`';

/** `9:00`, `09:30`, `17:05` → [hour, minute]; undefined when it is no time of day. */
function timeOfDay(text: string | undefined): [number, number] | undefined {
  if (text === undefined) return [0, 0];
  const match = /^(\d{1,2})(?::(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const hour = Number(match[1]);
  const minute = Number(match[2] ?? '0');
  return hour < 24 && minute < 60 ? [hour, minute] : undefined;
}

/** A phrase as a cron expression, or undefined when it is not one of ours. */
function phraseCron(phrase: string): string | undefined {
  if (phrase === 'every minute') return '* * * * *';
  if (phrase === 'every hour') return '0 * * * *';
  const match = /^every (day|weekday|sunday|monday|tuesday|wednesday|thursday|friday|saturday)(?: (?:at )?(\S+))?$/.exec(phrase);
  if (!match?.[1]) return undefined;
  const time = timeOfDay(match[2]);
  if (!time) return undefined;
  const days = match[1] === 'day' ? '*' : match[1] === 'weekday' ? '1-5' : String(DAYS[match[1]]);
  return `${time[1]} ${time[0]} * * ${days}`;
}

/**
 * Reads WHEN in `timezone` (`now` for `in N minutes`). A bad WHEN is an error naming what is accepted; cron
 * expressions must have exactly five fields (croner would also take seconds, which no person's routine needs).
 */
export function parseWhen(text: string, timezone: string, now: number): ParsedWhen {
  const phrase = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const relative = /^in (\d{1,5}) (minute|hour|day)s?$/.exec(phrase);
  if (relative?.[1] && relative[2]) {
    const amount = Number(relative[1]);
    const unit = UNITS[relative[2]] ?? 60_000;
    if (amount < 1) return { ok: false, error: `"${text.trim()}" is not in the future.` };
    return { ok: true, schedule: { kind: 'once', at: now + amount * unit } };
  }
  const cron = phraseCron(phrase) ?? phrase;
  if (cron.split(' ').length !== 5) return { ok: false, error: `"${text.trim()}" is not a schedule I know. Use ${WHEN_EXAMPLES}.` };
  try {
    new Cron(cron, { timezone, paused: true }).nextRun(new Date(now));
  } catch (error) {
    const why = (error as Error).message.replace(/^CronPattern: /, '').split('. ')[0] ?? 'invalid';
    return { ok: false, error: `"${text.trim()}" is not a valid cron expression (${why}). Use ${WHEN_EXAMPLES}.` };
  }
  return { ok: true, schedule: { kind: 'cron', cron, timezone } };
}

/**
 * The moments of `schedule` in (from, to], oldest first, at most `limit` (a long outage of an every-minute
 * routine is not a thousand runs). Repeating schedules go through croner (its time zone rules, DST included).
 */
export function ticksBetween(schedule: Schedule, from: number, to: number, limit = 100, crons?: CronCache): number[] {
  if (schedule.kind === 'once') return schedule.at > from && schedule.at <= to ? [schedule.at] : [];
  const cron = crons ? crons.of(schedule.cron, schedule.timezone) : new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
  const ticks: number[] = [];
  let cursor = new Date(from);
  while (ticks.length < limit) {
    const next = cron.nextRun(cursor);
    if (next === null || next.getTime() > to) break;
    ticks.push(next.getTime());
    cursor = next;
  }
  return ticks;
}

/** Parsed cron expressions by (expression, time zone): a scan of 1,000 routines parses each distinct one once. */
export class CronCache {
  private readonly crons = new Map<string, Cron>();
  of(expression: string, timezone: string): Cron {
    const key = `${expression}|${timezone}`;
    let cron = this.crons.get(key);
    if (cron === undefined) {
      if (this.crons.size > 10_000) this.crons.clear();
      cron = new Cron(expression, { timezone, paused: true });
      this.crons.set(key, cron);
    }
    return cron;
  }
}

/** The next moment after `now`, or undefined when there is none (a one-shot already past). */
export function nextTick(schedule: Schedule, now: number): number | undefined {
  if (schedule.kind === 'once') return schedule.at > now ? schedule.at : undefined;
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true }).nextRun(new Date(now))?.getTime();
}

/** The last moment at or before `now` (after `after`), for noticing a run missed while every instance was down. */
export function lastTickBefore(schedule: Schedule, after: number, now: number): number | undefined {
  return ticksBetween(schedule, after, now, 100_000).at(-1);
}
