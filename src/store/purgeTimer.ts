import type { Logger } from '../ops/log.ts';

/**
 * Runs `purge` every `intervalMs` without keeping the process alive (keyv 5 never drops expired rows by itself).
 * A failing purge is logged and tried again next time: it must never crash the bot or reject unhandled.
 */
export function startPurgeTimer(purge: () => Promise<number>, intervalMs: number, logger: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    purge()
      .then((removed) => {
        if (removed > 0) logger.debug({ removed }, 'purged expired store records');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'purging expired store records failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
