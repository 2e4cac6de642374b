// The scheduler's clock: real time, or (tests, benches) time running `speed` times faster from `origin`.

export type Clock = () => number;

/** Every instance given the same speed and origin reads the same time, so their ticks agree. */
export function schedulerClock(settings: { speed: number; origin: number }, now: () => number = Date.now): Clock {
  if (settings.speed === 1) return now;
  return () => settings.origin + (now() - settings.origin) * settings.speed;
}

/** A moment as people of `timezone` read it: `2026-11-30 09:00`. */
export function localTime(at: number, timezone: string): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).format(at);
}
