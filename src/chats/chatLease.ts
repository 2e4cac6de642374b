import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import type { Store } from '../store/types.ts';

export interface LeaseOptions {
  /** A lease not renewed for this long is free again (its holder died). */
  ttlMs: number;
  /** How often the holder renews it; well under ttlMs. */
  heartbeatMs: number;
}

export const DEFAULT_LEASE: LeaseOptions = { ttlMs: 30_000, heartbeatMs: 10_000 };

/** A held lease: renewed by a heartbeat until released. `lost` turns true if someone else took it over. */
export interface HeldLease {
  readonly lost: boolean;
  release(): Promise<void>;
}

/**
 * One chat's turns stay serialised across instances: whoever holds `leases/chat:<chatId>` runs them. The holder
 * renews it by compare-and-set on its own token; a dead holder's lease expires and another instance takes over.
 */
export async function acquireChatLease(
  store: Store,
  chatId: string,
  options: LeaseOptions,
  logger: Logger,
): Promise<HeldLease | undefined> {
  const key = `chat:${chatId}`;
  const token = randomUUID();
  if (!(await store.claim('leases', key, { status: token, at: Date.now() }, options.ttlMs))) return undefined;
  let lost = false;
  let released = false;
  const timer = setInterval(() => {
    store
      .compareAndSet('leases', key, token, { status: token, at: Date.now() }, options.ttlMs)
      .then((renewed) => {
        if (!renewed && !released) {
          lost = true;
          logger.warn({ chatId }, 'chat lease lost: another instance may run this chat now');
        }
      })
      .catch((error: unknown) => logger.warn({ err: error, chatId }, 'chat lease renewal failed'));
  }, options.heartbeatMs);
  timer.unref();
  return {
    get lost() {
      return lost;
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await store.release('leases', key, token);
    },
  };
}
