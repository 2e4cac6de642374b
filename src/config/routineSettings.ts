// Routines, follow-ups and webhooks (src/routines): the per-world `timezone` and the env bounds, read once here.
import { z } from 'zod';
import { ConfigError, intVar, optional } from './envVars.ts';

/** Whether the platform's time zone database knows `name` (an IANA name such as Europe/Paris). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A world's `timezone`: an IANA name; WHEN phrases and cron expressions of its routines are read in it. */
export const timezoneSchema = z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Paris or UTC');

export interface RoutineSettings {
  /** ROUTINE_TICK_MS: how often each instance looks for due runs (runs start within this of their time). */
  tickMs: number;
  /** ROUTINE_GRACE_MS: a run missed while every instance was down still runs on start when this recent. */
  graceMs: number;
  /** HOOK_MAX_BYTES: a webhook body over this answers 413. */
  hookMaxBytes: number;
  /** HOOK_RATE_PER_MINUTE: deliveries one hook may start per minute (per instance); past it, 429. */
  hookRatePerMinute: number;
  /** Follow-ups one chat may have pending (FOLLOWUPS_PER_CHAT). */
  followupsPerChat: number;
  /**
   * ROUTINES_CLOCK_SPEED and ROUTINES_CLOCK_ORIGIN (tests and benches): the scheduler's clock runs this many times
   * faster than real time from the origin (epoch ms), the same on every instance given the same pair. Default 1.
   */
  clock: { speed: number; origin: number };
}

export function routineSettings(env: NodeJS.ProcessEnv): RoutineSettings {
  const originText = optional(env.ROUTINES_CLOCK_ORIGIN);
  const origin = originText === undefined ? 0 : Number(originText);
  if (!Number.isSafeInteger(origin) || origin < 0) {
    throw new ConfigError(`ROUTINES_CLOCK_ORIGIN must be epoch milliseconds (got "${originText ?? ''}"); see .env.example.`);
  }
  return {
    tickMs: intVar(env, 'ROUTINE_TICK_MS', 5_000, 50, 30_000),
    graceMs: intVar(env, 'ROUTINE_GRACE_MS', 15 * 60_000, 0, 7 * 24 * 3_600_000),
    hookMaxBytes: intVar(env, 'HOOK_MAX_BYTES', 1024 * 1024, 1, 64 * 1024 * 1024),
    hookRatePerMinute: intVar(env, 'HOOK_RATE_PER_MINUTE', 60, 1, 100_000),
    followupsPerChat: intVar(env, 'FOLLOWUPS_PER_CHAT', 3, 1, 50),
    clock: { speed: intVar(env, 'ROUTINES_CLOCK_SPEED', 1, 1, 3_600), origin },
  };
}
