// Gateway events being handled, so that stop() lets them end before the client goes.
import { setTimeout as delay } from 'node:timers/promises';

/** Gateway events being handled (a message being queued, a command, a click), so that stop() can let them end. */
export class EventWork {
  readonly #running = new Set<Promise<void>>();

  /** Tracks `work`, which must not reject (its handler logs its own failures). */
  run(work: Promise<void>): void {
    const tracked = work.finally(() => this.#running.delete(tracked));
    this.#running.add(tracked);
  }

  /** Waits up to `graceMs` for the events being handled. */
  async drain(graceMs: number): Promise<void> {
    if (this.#running.size === 0) return;
    const timeout = new AbortController();
    await Promise.race([Promise.allSettled([...this.#running]), delay(graceMs, undefined, { signal: timeout.signal }).catch(() => undefined)]);
    timeout.abort();
  }
}
