import type { Logger } from '../ops/log.ts';
import { LocalChannels } from './localChannels.ts';
import { startPurgeTimer } from './purgeTimer.ts';
import { StoreError } from './storeError.ts';
import { optionalTtl, requireTtl, decodeRecord, encodeRecord, hasStatus, isLive, recordKey, type StoredRecord } from './storedRecord.ts';
import type { AcceptOutcome, InboxEntry, ListableNamespace, Namespace, Store } from './types.ts';

/**
 * The store for tests and single-process runs: a Map in this process, gone on exit. Values are kept as JSON
 * text, so a caller gets the same copies (and the same refusals of non-JSON values) as from sqlite or redis.
 * Every operation is synchronous inside, hence claim, compare-and-set and release are atomic without a lock.
 * Publish/subscribe reaches the subscribers of this store object.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  /** Nothing leaves the process: there are no round trips to count. */
  readonly roundTrips = 0;
  readonly #records = new Map<string, string>();
  /** Per chat: waiting messages as JSON text, by id (Map keeps insertion order; ids are sorted on read). */
  readonly #inboxes = new Map<string, Map<string, string>>();
  readonly #stopPurge: () => void;
  readonly #channels: LocalChannels;
  #closed = false;

  constructor(opts: { logger: Logger; purgeIntervalMs: number }) {
    this.#channels = new LocalChannels(opts.logger);
    this.#stopPurge = startPurgeTimer(async () => this.purgeExpired(), opts.purgeIntervalMs, opts.logger);
  }

  async get<T>(namespace: Namespace, key: string): Promise<T | undefined> {
    const record = this.#live(recordKey(namespace, key), Date.now());
    return record?.value as T | undefined;
  }

  async set(namespace: Namespace, key: string, value: unknown, ttlMs?: number): Promise<void> {
    const ttl = optionalTtl(ttlMs);
    this.#open();
    this.#records.set(recordKey(namespace, key), encodeRecord(value, ttl === undefined ? undefined : Date.now() + ttl));
  }

  async delete(namespace: Namespace, key: string): Promise<void> {
    this.#open();
    this.#records.delete(recordKey(namespace, key));
  }

  async claim(namespace: Namespace, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const ttl = requireTtl(ttlMs);
    const now = Date.now();
    const id = recordKey(namespace, key);
    if (this.#live(id, now)) return false;
    this.#records.set(id, encodeRecord(value, now + ttl));
    return true;
  }

  async compareAndSet<T extends { status: string }>(
    namespace: Namespace,
    key: string,
    expectedStatus: string,
    next: T,
    ttlMs?: number,
  ): Promise<boolean> {
    const ttl = optionalTtl(ttlMs);
    const now = Date.now();
    const id = recordKey(namespace, key);
    const current = this.#live(id, now);
    if (!current || !hasStatus(current.value, expectedStatus)) return false;
    const expires = ttl === undefined ? (current.expires ?? undefined) : now + ttl;
    this.#records.set(id, encodeRecord(next, expires));
    return true;
  }

  async release(namespace: Namespace, key: string, expectedStatus: string): Promise<boolean> {
    const id = recordKey(namespace, key);
    const current = this.#live(id, Date.now());
    if (!current || !hasStatus(current.value, expectedStatus)) return false;
    this.#records.delete(id);
    return true;
  }

  async increment(namespace: Exclude<Namespace, ListableNamespace>, key: string, by: number, ttlMs: number): Promise<number> {
    const ttl = requireTtl(ttlMs);
    this.#open();
    const now = Date.now();
    const id = recordKey(namespace, key);
    const current = this.#live(id, now);
    const counting = typeof current?.value === 'number';
    const total = counting ? (current.value as number) + by : by;
    this.#records.set(id, encodeRecord(total, counting ? (current.expires ?? undefined) : now + ttl));
    return total;
  }

  async list<T>(namespace: ListableNamespace, prefix: string): Promise<Array<{ key: string; value: T }>> {
    this.#open();
    const head = recordKey(namespace, '');
    const now = Date.now();
    const found: Array<{ key: string; value: T }> = [];
    for (const id of this.#records.keys()) {
      if (!id.startsWith(head + prefix)) continue;
      const record = this.#live(id, now);
      if (record) found.push({ key: id.slice(head.length), value: record.value as T });
    }
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async accept(claims: string[], claimTtlMs: number, entry?: { chatId: string; item: InboxEntry }): Promise<AcceptOutcome> {
    const ttl = requireTtl(claimTtlMs);
    this.#open();
    const now = Date.now();
    const ids = claims.map((claim) => recordKey('dedupe', claim));
    if (ids.some((id) => this.#live(id, now))) return 'duplicate';
    const text = entry === undefined ? undefined : JSON.stringify(entry.item);
    for (const id of ids) this.#records.set(id, encodeRecord({ status: 'accepted', at: now }, now + ttl));
    if (entry !== undefined && text !== undefined) {
      const inbox = this.#inboxes.get(entry.chatId) ?? new Map<string, string>();
      inbox.set(entry.item.id, text);
      this.#inboxes.set(entry.chatId, inbox);
    }
    return 'queued';
  }

  async inboxHead<T>(chatId: string, limit: number): Promise<Array<InboxEntry<T>>> {
    this.#open();
    const inbox = this.#inboxes.get(chatId);
    if (!inbox) return [];
    return [...inbox.keys()]
      .sort()
      .slice(0, limit)
      .map((id) => JSON.parse(inbox.get(id) ?? 'null') as InboxEntry<T>);
  }

  async inboxRemove(chatId: string, id: string): Promise<void> {
    this.#open();
    const inbox = this.#inboxes.get(chatId);
    inbox?.delete(id);
    if (inbox?.size === 0) this.#inboxes.delete(chatId);
  }

  async inboxChats(): Promise<Array<{ chatId: string; oldestAt: number }>> {
    this.#open();
    const chats: Array<{ chatId: string; oldestAt: number }> = [];
    for (const chatId of this.#inboxes.keys()) {
      const [oldest] = await this.inboxHead(chatId, 1);
      if (oldest) chats.push({ chatId, oldestAt: oldest.at });
    }
    return chats;
  }

  async inboxSize(): Promise<number> {
    this.#open();
    let size = 0;
    for (const inbox of this.#inboxes.values()) size += inbox.size;
    return size;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.#open();
    this.#channels.publish(channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.#open();
    return this.#channels.subscribe(channel, handler);
  }

  async ping(): Promise<boolean> {
    return !this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopPurge();
    this.#channels.clear();
    this.#records.clear();
    this.#inboxes.clear();
  }

  /** Drops expired records; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = Date.now();
    let removed = 0;
    for (const [id, text] of this.#records) {
      if (!isLive(decodeRecord(text), now)) {
        this.#records.delete(id);
        removed++;
      }
    }
    return removed;
  }

  #open(): void {
    if (this.#closed) throw new StoreError('memory store is closed');
  }

  #live(id: string, now: number): StoredRecord | undefined {
    this.#open();
    const text = this.#records.get(id);
    if (text === undefined) return undefined;
    const record = decodeRecord(text);
    return isLive(record, now) ? record : undefined;
  }
}
