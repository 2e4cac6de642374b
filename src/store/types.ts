/** The namespaces the core keeps data in. */
export type Namespace = 'history' | 'grants' | 'approvals' | 'dedupe' | 'audit' | 'usage' | 'chats' | 'leases';

/**
 * The small state interface every part of the core uses (built on Keyv, plus the atomic operations Keyv
 * lacks). Values are JSON-serialisable. Store errors are thrown as errors, never read as "not found".
 */
export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'memory';
  get<T>(namespace: Namespace, key: string): Promise<T | undefined>;
  set(namespace: Namespace, key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(namespace: Namespace, key: string): Promise<void>;
  /** Set `key` only if absent (or expired). Of concurrent callers, across instances, exactly one gets true. */
  claim(namespace: Namespace, key: string, value: unknown, ttlMs: number): Promise<boolean>;
  /**
   * Replace a record whose `status` field equals `expectedStatus` with `next`, atomically.
   * Returns false, changing nothing, when the record is missing (or expired) or its status differs.
   * With `ttlMs` the record expires that long from now; without it, it keeps its current expiry.
   */
  compareAndSet<T extends { status: string }>(
    namespace: Namespace,
    key: string,
    expectedStatus: string,
    next: T,
    ttlMs?: number,
  ): Promise<boolean>;
  /**
   * Delete a record only if its `status` field equals `expectedStatus`, atomically (a lease released only by
   * its owner). Returns false, changing nothing, when the record is missing (or expired) or its status differs.
   */
  release(namespace: Namespace, key: string, expectedStatus: string): Promise<boolean>;
  /** Live records of a namespace whose key starts with `prefix`, sorted by key (operator commands). */
  list<T>(namespace: Namespace, prefix: string): Promise<Array<{ key: string; value: T }>>;
  /**
   * Send `message` to every current subscriber of `channel`. Redis: every instance on the server (same key
   * prefix); sqlite and memory: subscribers of this store object only. Delivery is at most once: a subscriber
   * that is disconnected misses it, so callers keep the record in the store and treat a message as a hint.
   */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Call `handler` with each message published on `channel` from now on (resolves once that holds). A handler
   * that throws (or rejects) is logged, never propagated. Returns the unsubscribe; after it resolves the
   * handler is not called again.
   */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  /** True when the backing store answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
