// "Is the instance that asked this question still running?": a liveness record per instance, kept fresh by a heartbeat.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';

export interface InstanceLivenessRecord {
  status: 'alive';
  instanceId: string;
  startedAt: number;
  beatAt: number;
}

/** Key in the 'leases' namespace. */
export function instanceLeaseKey(instanceId: string): string {
  return `instance:${instanceId}`;
}

/** Readable in logs and records: host, process id, and a random part so a restarted process gets a new id. */
export function newInstanceId(): string {
  return `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * How long an instance whose connections are gone still counts as alive after its last beat: long enough for a
 * live one to reconnect after a dropped connection (and beat again), far shorter than the record's TTL.
 */
export const DISCONNECTED_GRACE_MS = 1_500;

/**
 * Alive while its liveness record is fresh, except that an instance the store no longer sees connected
 * (`isConnected`, Redis) and that has not beaten for DISCONNECTED_GRACE_MS is taken for dead at once:
 * a killed process is noticed in about a second instead of when its record lapses.
 */
export async function isInstanceAlive(store: Store, instanceId: string, now: () => number = Date.now): Promise<boolean> {
  const record = await store.get<InstanceLivenessRecord>('leases', instanceLeaseKey(instanceId));
  if (record === undefined) return false;
  if ((await store.isConnected?.(instanceId)) !== false) return true;
  // beatAt is the other instance's clock: hosts' clocks must agree within a fraction of the grace (NTP does).
  return now() - record.beatAt < DISCONNECTED_GRACE_MS;
}

export interface InstanceLivenessOptions {
  store: Store;
  instanceId: string;
  /** The record lapses this long after the last beat: a crashed instance counts as gone within it. */
  ttlMs: number;
  heartbeatMs: number;
  logger: Logger;
}

/**
 * This instance's liveness record. The first `ensure()` writes it and starts an unref'd heartbeat; `stop()`
 * ends the heartbeat and either removes the record at once or leaves it to lapse within its TTL.
 */
export class InstanceLiveness {
  readonly #options: InstanceLivenessOptions;
  readonly #startedAt = Date.now();
  #started: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #failing = false;
  #stopped = false;

  constructor(options: InstanceLivenessOptions) {
    if (!(options.heartbeatMs > 0 && options.heartbeatMs < options.ttlMs)) {
      throw new RangeError(`the heartbeat (${options.heartbeatMs} ms) must be positive and shorter than the liveness TTL (${options.ttlMs} ms)`);
    }
    this.#options = options;
  }

  /** Resolves once the record is written; rejects (and is tried again next call) when the store fails. */
  ensure(): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error('The instance liveness record was stopped.'));
    if (this.#started === undefined) {
      const started = this.#write().then(() => this.#startHeartbeat());
      this.#started = started;
      started.catch(() => {
        if (this.#started === started) this.#started = undefined;
      });
    }
    return this.#started;
  }

  async stop(options: { remove: boolean }): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    // A beat in flight could otherwise write the record again after it was removed.
    await this.#started?.catch(() => undefined);
    await this.#beating;
    if (options.remove && this.#started !== undefined) {
      await this.#options.store.delete('leases', instanceLeaseKey(this.#options.instanceId));
    }
  }

  async #write(): Promise<void> {
    const { store, instanceId, ttlMs } = this.#options;
    const record: InstanceLivenessRecord = { status: 'alive', instanceId, startedAt: this.#startedAt, beatAt: Date.now() };
    await store.set('leases', instanceLeaseKey(instanceId), record, ttlMs);
  }

  #startHeartbeat(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#beat(), this.#options.heartbeatMs);
    this.#timer.unref();
  }

  #beat(): void {
    if (this.#beating !== undefined || this.#stopped) return;
    const { logger, instanceId } = this.#options;
    this.#beating = this.#write()
      .then(() => {
        if (this.#failing) logger.info({ instanceId }, 'instance liveness record written again');
        this.#failing = false;
      })
      .catch((error: unknown) => {
        // Logged once per streak: past the TTL other instances take this one's open questions for orphans.
        if (!this.#failing) logger.warn({ err: error, instanceId }, 'refreshing the instance liveness record failed');
        this.#failing = true;
      })
      .finally(() => {
        this.#beating = undefined;
      });
  }
}
