// Work that goes on after Slack got its acknowledgement: tracked, so nothing rejects unhandled and stop()
// can wait for it.
import type { Logger } from '../../src/ops/log.ts';

export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(what: string, work: () => Promise<unknown>): void {
    const task = Promise.resolve()
      .then(work)
      .then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error, what }, 'Slack background work failed'),
      )
      .finally(() => this.#running.delete(task));
    this.#running.add(task);
  }

  /** Waits for running work, at most `timeoutMs`. Returns how many were still running then. */
  async drain(timeoutMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.#running]), timeout]);
    clearTimeout(timer);
    return this.#running.size;
  }
}
