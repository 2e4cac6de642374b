// Each platform click or command acted on once, whatever the platform redelivers (Socket Mode replays). Messages
// do not come here: the dispatcher's accept() claims their keys and queues them in one atomic step. Claims live
// in the store, so they hold across instances; adapters choose the keys.
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/types.ts';

/** Slack retries for minutes and replays soon after a reconnect; an hour is asked for, two kept. */
export const DEDUPE_TTL_MS = 2 * 60 * 60 * 1000;
/**
 * A delivery is "working" from its claim until the turn is queued, normally milliseconds. A working claim
 * older than this belongs to a process that died before processing it: a retry may take it over.
 */
export const DEDUPE_LEASE_MS = 30_000;

interface ClaimValue {
  /** `working:<nonce>` while being handed over, `done` once queued. */
  status: string;
  at: number;
}

/** One delivery that won its claims: report how it ended. */
export interface Delivery {
  /** The message was handed to the engine: every later delivery of it is dropped. */
  done(): Promise<void>;
  /** It could not be processed: a redelivery should be. */
  abandon(): Promise<void>;
}

export interface DedupeOptions {
  ttlMs?: number;
  leaseMs?: number;
  now?: () => number;
  /** Called for each delivery dropped as a duplicate (metrics). */
  onDuplicate?: () => void;
}

export class DeliveryDedupe {
  readonly #store: Store;
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #onDuplicate: () => void;

  constructor(store: Store, options: DedupeOptions = {}) {
    this.#onDuplicate = options.onDuplicate ?? (() => {});
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? DEDUPE_TTL_MS;
    this.#leaseMs = options.leaseMs ?? DEDUPE_LEASE_MS;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Claims every key (an event id, a channel+ts); undefined when any of them was already processed or is being
   * processed now. A key whose claim is stale (its process died before queueing the turn) is taken over.
   */
  async take(keys: string[]): Promise<Delivery | undefined> {
    const delivery = await this.#take(keys);
    if (!delivery) this.#onDuplicate();
    return delivery;
  }

  async #take(keys: string[]): Promise<Delivery | undefined> {
    const status = `working:${randomUUID()}`;
    for (const key of keys) {
      if (!(await this.#takeOne(key, status))) return undefined;
    }
    return {
      done: () => this.#setAll(keys, status, { status: 'done', at: this.#now() }),
      // `at: 0` makes the claim stale at once, so the next delivery takes it over.
      abandon: () => this.#setAll(keys, status, { status: 'released', at: 0 }),
    };
  }

  async #takeOne(key: string, status: string): Promise<boolean> {
    const mine: ClaimValue = { status, at: this.#now() };
    if (await this.#store.claim('dedupe', key, mine, this.#ttlMs)) return true;
    const held = await this.#store.get<ClaimValue>('dedupe', key);
    // Gone between the two calls (expired): one more plain claim decides.
    if (held === undefined) return this.#store.claim('dedupe', key, mine, this.#ttlMs);
    if (held.status === 'done' || this.#now() - held.at < this.#leaseMs) return false;
    return this.#store.compareAndSet('dedupe', key, held.status, mine, this.#ttlMs);
  }

  async #setAll(keys: string[], status: string, next: ClaimValue): Promise<void> {
    for (const key of keys) await this.#store.compareAndSet('dedupe', key, status, next, this.#ttlMs);
  }
}
