// The scheduler loop, on every instance: one read of the book per tick, then a claim per due (routine, tick).
import type { Logger } from '../ops/log.ts';
import type { RoutineBook } from './book.ts';
import type { Clock } from './clock.ts';
import type { Routine } from './records.ts';
import { recoverTick, runAtTick, type RunDeps, type RunOutcome, tickKey } from './runs.ts';
import { CronCache, lastTickBefore, ticksBetween } from './when.ts';

/** A tick claimed elsewhere is looked at again after this long (real time): done, or left by a dead instance. */
const RECHECK_MS = 10_000;
/** Runs started at once by one scan (1,000 routines due in one minute start in waves of this many). */
const PARALLEL = 32;
/** A missed run older than this is not looked for at start (a routine idle for a year is not replayed). */
const LOOK_BACK_MS = 30 * 24 * 3_600_000;

export interface SchedulerDeps extends RunDeps {
  book: RoutineBook;
  clock: Clock;
  tickMs: number;
  graceMs: number;
  logger: Logger;
  /** Posts the note of a run skipped because every instance was down past the grace window. */
  noteSkipped(routine: Routine, tick: number, lastChatId: string | undefined): Promise<void>;
}

/** What one scan did and cost (bench figures). */
export interface ScanStats {
  due: number;
  started: number;
  ms: number;
}

interface Pending {
  routine: Routine;
  tick: number;
  since: number;
}

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private lastScan = 0;
  private scanning: Promise<ScanStats | undefined> | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly crons = new CronCache();

  constructor(private readonly deps: SchedulerDeps) {}

  /** Looks back over the grace window (runs missed while every instance was down), then scans every tick. */
  async start(): Promise<void> {
    const now = this.deps.clock();
    this.lastScan = now - this.deps.graceMs;
    await this.noteMissed(now).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'looking for missed routine runs failed'));
    this.timer = setInterval(() => void this.scan(), this.deps.tickMs);
    this.timer.unref();
    void this.scan();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.scanning;
  }

  /** One scan (the timer's; tests and the bench call it too). Never two at once. */
  scan(): Promise<ScanStats | undefined> {
    this.scanning ??= this.scanOnce()
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'a routine scan failed; the next one tries again');
        return undefined;
      })
      .finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async scanOnce(): Promise<ScanStats> {
    const started = performance.now();
    const now = this.deps.clock();
    const book = await this.deps.book.read();
    const due: Array<{ routine: Routine; tick: number }> = [];
    for (const routine of book.routines) {
      // A platform this instance does not run: left to the instances that do (no claim taken here).
      if (routine.paused || !this.deps.port(routine.worldId.slice(0, routine.worldId.indexOf(':')))) continue;
      for (const tick of ticksBetween(routine.schedule, Math.max(this.lastScan, routine.createdAt), now, 100, this.crons)) due.push({ routine, tick });
    }
    this.lastScan = now;
    let count = 0;
    await inWaves(due, async ({ routine, tick }) => {
      const outcome = await runAtTick(this.deps, routine, tick);
      if (outcome === 'started') count++;
      this.settle(routine, tick, outcome);
    });
    await this.recheck(book.routines, now);
    return { due: due.length, started: count, ms: performance.now() - started };
  }

  /** A started one-shot leaves the book; a tick another instance holds (or that failed here) is watched. */
  private settle(routine: Routine, tick: number, outcome: RunOutcome | 'done'): void {
    const key = tickKey(routine, tick);
    if (outcome === 'elsewhere') {
      if (!this.pending.has(key)) this.pending.set(key, { routine, tick, since: Date.now() });
      return;
    }
    if (outcome === 'failed') {
      this.pending.set(key, { routine, tick, since: Date.now() - RECHECK_MS / 2 });
      return;
    }
    this.pending.delete(key);
    if (routine.schedule.kind === 'once' && (outcome === 'started' || outcome === 'denied')) void this.removeOneShot(routine.id);
  }

  private async recheck(routines: Routine[], now: number): Promise<void> {
    const live = new Set(routines.map((routine) => routine.id));
    const stale = [...this.pending.entries()].filter(([key, entry]) => {
      if (!live.has(entry.routine.id) || entry.tick < now - this.deps.graceMs) {
        this.pending.delete(key);
        return false;
      }
      return Date.now() - entry.since >= RECHECK_MS;
    });
    await inWaves(stale, async ([key, entry]) => {
      const outcome = await recoverTick(this.deps, entry.routine, entry.tick);
      if (outcome === 'elsewhere') this.pending.set(key, { ...entry, since: Date.now() });
      else this.settle(entry.routine, entry.tick, outcome);
    });
  }

  private async removeOneShot(id: string): Promise<void> {
    await this.deps.book
      .update((book) => ({ book: { ...book, routines: book.routines.filter((routine) => routine.id !== id) }, result: undefined }))
      .catch((error: unknown) => this.deps.logger.warn({ err: error, routine: id }, 'removing a finished one-shot failed'));
  }

  /**
   * At start: a routine whose latest due run is older than the grace window and never ran (every instance was
   * down) gets one note saying it was skipped (claimed, so one instance posts it); a one-shot then leaves the book.
   */
  private async noteMissed(now: number): Promise<void> {
    const { routines } = await this.deps.book.read();
    for (const routine of routines) {
      if (routine.paused) continue;
      const last = await this.deps.book.lastRun(routine.id);
      const since = Math.max(last?.tick ?? routine.createdAt, routine.createdAt, now - LOOK_BACK_MS);
      const missed = lastTickBefore(routine.schedule, since, now - this.deps.graceMs);
      if (missed === undefined) continue;
      if (!(await this.deps.store.claim('dedupe', `routine-skip:${routine.id}:${missed}`, { status: 'noted' }, this.deps.claimTtlMs))) continue;
      await this.deps.noteSkipped(routine, missed, last?.chatId);
      await this.deps.book.setLastRun(routine.id, { tick: missed, at: Date.now(), ...(last?.chatId ? { chatId: last.chatId } : {}), result: 'skipped (every instance was down)' });
      if (routine.schedule.kind === 'once') await this.removeOneShot(routine.id);
    }
  }
}

async function inWaves<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += PARALLEL) await Promise.all(items.slice(start, start + PARALLEL).map(run));
}
