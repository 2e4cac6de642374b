import { randomUUID } from 'node:crypto';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';

export interface LeaseOptions {
  /** A lease not renewed for this long is free again (the backstop: a dead holder is normally noticed sooner). */
  ttlMs: number;
  /** How often the holder renews it; well under ttlMs. */
  heartbeatMs: number;
}

export const DEFAULT_LEASE: LeaseOptions = { ttlMs: 30_000, heartbeatMs: 10_000 };

/** Who this instance is, and whether another one still runs (its liveness record is fresh). */
export interface LeaseHolders {
  instanceId: string;
  isAlive(instanceId: string): Promise<boolean>;
}

interface LeaseRecord {
  status: string;
  at: number;
  instanceId?: string;
}

/** A held lease: renewed by a heartbeat until released. `lost` turns true if someone else took it over. */
export interface HeldLease {
  readonly lost: boolean;
  release(): Promise<void>;
}

/**
 * One chat's turns stay serialised across instances: whoever holds `leases/chat:<chatId>` runs them. The holder
 * renews it by compare-and-set on its own token. A lease whose holder's liveness record is gone (it crashed) is
 * taken over at once, by compare-and-set on the dead holder's token, instead of when it lapses.
 * The caller must not be running the chat already (DurableQueue keeps one drain per chat).
 */
export async function acquireChatLease(
  store: Store,
  chatId: string,
  options: LeaseOptions,
  holders: LeaseHolders,
  logger: Logger,
): Promise<HeldLease | undefined> {
  const key = `chat:${chatId}`;
  const token = randomUUID();
  const mine = (): LeaseRecord => ({ status: token, at: Date.now(), instanceId: holders.instanceId });
  if (!(await store.claim('leases', key, mine(), options.ttlMs))) {
    const held = await store.get<LeaseRecord>('leases', key);
    if (held === undefined) {
      if (!(await store.claim('leases', key, mine(), options.ttlMs))) return undefined;
    } else {
      const holder = held.instanceId;
      // Held in our own name while we are not running the chat (the caller's promise): its release failed, say
      // because the store was away then. Taken back at once, or the chat's last answered message would sit in
      // the inbox until the lease lapsed.
      const ours = holder === holders.instanceId;
      if (holder === undefined || (!ours && (await holders.isAlive(holder)))) return undefined;
      if (!(await store.compareAndSet('leases', key, held.status, mine(), options.ttlMs))) return undefined;
      if (ours) logger.info({ chatId }, 'chat lease taken back after its release failed');
      else logger.info({ chatId, from: holder }, 'chat taken over from an instance that is gone');
    }
  }
  let lost = false;
  let released = false;
  const timer = setInterval(() => {
    store
      .compareAndSet('leases', key, token, mine(), options.ttlMs)
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
