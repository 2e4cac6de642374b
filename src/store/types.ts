/** The namespaces the core keeps data in. */
export const NAMESPACES = ['history', 'grants', 'approvals', 'dedupe', 'audit', 'usage', 'chats', 'leases', 'workspaces', 'mcp', 'installs', 'routines'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/**
 * The namespaces `list` serves, each through an index (Redis: a sorted set of its keys; SQLite: a key range on
 * the primary key), so a listing costs what it returns, never a walk over the whole store.
 */
export const LISTABLE_NAMESPACES = ['grants', 'audit', 'approvals'] as const;
export type ListableNamespace = (typeof LISTABLE_NAMESPACES)[number];

/** A message waiting in a chat's inbox: ids sort by arrival, `at` is its arrival time (epoch ms). */
export interface InboxEntry<T = unknown> {
  id: string;
  at: number;
  value: T;
}

/** What accept() did: queued it (first delivery), or nothing at all (a key of it was already accepted). */
export type AcceptOutcome = 'queued' | 'duplicate';

/**
 * The small state interface every part of the core uses (built on Keyv, plus the atomic operations Keyv
 * lacks). Values are JSON-serialisable. Store errors are thrown as errors, never read as "not found".
 */
export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'memory';
  /**
   * Whether the bot instance holds a connection to the store right now (Redis: by connection name); undefined
   * where the store cannot tell. A dead process's connections close at once: a faster sign than its liveness record.
   */
  isConnected?(instanceId: string): Promise<boolean | undefined>;
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
  /**
   * Add `by` to the number at `key`, atomically across instances, and return the new total. A missing or expired
   * record (or one that holds no number) starts at 0 and expires `ttlMs` from now; a live one keeps its expiry.
   * Not for listable namespaces (their key index is not kept here).
   */
  increment(namespace: Exclude<Namespace, ListableNamespace>, key: string, by: number, ttlMs: number): Promise<number>;
  /** Live records of a namespace whose key starts with `prefix`, sorted by key (operator commands). */
  list<T>(namespace: ListableNamespace, prefix: string): Promise<Array<{ key: string; value: T }>>;
  /**
   * One platform delivery, in ONE atomic step: unless one of `claims` is held already (in 'dedupe'), hold them
   * all for `claimTtlMs` and append `entry` (if any) to the inbox of `entry.chatId`, marking that chat as
   * waiting. 'duplicate' changed nothing. There is no state in between, so a process that dies mid-way leaves
   * either a fully accepted delivery or none.
   */
  accept(
    claims: string[],
    claimTtlMs: number,
    entry?: { chatId: string; item: InboxEntry },
  ): Promise<AcceptOutcome>;
  /** The first `limit` waiting messages of a chat, oldest first. */
  inboxHead<T>(chatId: string, limit: number): Promise<Array<InboxEntry<T>>>;
  /** Removes one answered message; a chat left with none is no longer waiting. */
  inboxRemove(chatId: string, id: string): Promise<void>;
  /** Chats with messages waiting (the sweeper's list), each with the arrival time of its oldest one. */
  inboxChats(): Promise<Array<{ chatId: string; oldestAt: number }>>;
  /** Messages waiting over all chats (a gauge). */
  inboxSize(): Promise<number>;
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
  /** Operations sent to the backend so far (SQLite statements, Redis round trips): for bench figures. */
  readonly roundTrips: number;
  /** True when the backing store answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
