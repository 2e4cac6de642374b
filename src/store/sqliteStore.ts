import fs from 'node:fs/promises';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import type { Logger } from '../ops/log.ts';
import { LocalChannels } from './localChannels.ts';
import { startPurgeTimer } from './purgeTimer.ts';
import { StoreError, storeOperation } from './storeError.ts';
import { decodeRecord, encodeRecord, isLive, optionalTtl, recordKey, requireTtl } from './storedRecord.ts';
import { prefixRange } from './keyRange.ts';
import type { AcceptOutcome, InboxEntry, ListableNamespace, Namespace, Store } from './types.ts';
import { acceptSql, BUSY_TIMEOUT_MS, CAS_KEEP_EXPIRY_SQL, CAS_NEW_EXPIRY_SQL, CLAIM_SQL, DROP_MARKER_SQL, EXPIRES_INDEX_SQL, HEAD_SQL, INCREMENT_SQL, LIST_SQL, PURGE_SQL, QUEUE, QUEUE_SIZE_SQL, QUEUED_CHAT, QUEUED_CHATS_SQL, queuedChatKey, queueOf, RELEASE_SQL, REMOVE_ITEM_SQL, RENEW_MARKER_SQL, TABLE } from './sqliteSql.ts';

type Rows = Array<Record<string, unknown>>;

/**
 * The embedded default. Plain get/set/delete go through Keyv on @keyv/sqlite; the atomic operations are single
 * SQL statements on the same connection and table, so they are atomic across every connection to the file
 * (SQLite serialises writers), which is what makes two bot instances on one file safe. Publish/subscribe is
 * in-process only (this store object): SQLite cannot notify another connection.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly #adapter: KeyvSqlite;
  readonly #keyv: Keyv;
  readonly #stopPurge: () => void;
  readonly #channels: LocalChannels;
  #closed = false;
  #statements = 0;

  private constructor(adapter: KeyvSqlite, logger: Logger, purgeIntervalMs: number) {
    this.#adapter = adapter;
    this.#channels = new LocalChannels(logger);
    this.#keyv = new Keyv(adapter, {
      namespace: undefined,
      useKeyPrefix: false,
      // keyv 5 otherwise swallows store errors and answers "not found".
      throwOnErrors: true,
      serialize: JSON.stringify,
      deserialize: JSON.parse,
    });
    this.#stopPurge = startPurgeTimer(async () => this.purgeExpired(), purgeIntervalMs, logger);
  }

  /** Opens (creating its folder and file on first run) the database at `file`. */
  static async open(file: string, opts: { logger: Logger; purgeIntervalMs: number }): Promise<SqliteStore> {
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
    } catch (error) {
      throw new StoreError(`cannot create the folder of the sqlite store ${file}: ${(error as Error).message}`, { cause: error });
    }
    const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, table: TABLE, busyTimeout: BUSY_TIMEOUT_MS });
    try {
      // WAL: readers never wait for a writer, and a second instance on the same file works.
      await adapter.query('PRAGMA journal_mode = WAL');
      await adapter.query(EXPIRES_INDEX_SQL);
      await adapter.query(PURGE_SQL, Date.now());
    } catch (error) {
      await adapter.close().catch(() => undefined);
      throw new StoreError(`cannot open the sqlite store ${file}: ${(error as Error).message}`, { cause: error });
    }
    opts.logger.debug({ file }, 'sqlite store open');
    return new SqliteStore(adapter, opts.logger, opts.purgeIntervalMs);
  }

  async get<T>(namespace: Namespace, key: string): Promise<T | undefined> {
    // Read directly rather than through Keyv: Keyv's get deletes an expired row unconditionally, which could
    // remove a fresh claim another caller made on that key in between. Expired rows are left to the purge.
    return this.#run(`get ${namespace}:${key}`, async () => {
      const rows = await this.#query(`SELECT value FROM ${TABLE} WHERE key = ?`, recordKey(namespace, key));
      const text = rows[0]?.value;
      if (typeof text !== 'string') return undefined;
      const record = decodeRecord(text);
      return isLive(record, Date.now()) ? (record.value as T) : undefined;
    });
  }

  async set(namespace: Namespace, key: string, value: unknown, ttlMs?: number): Promise<void> {
    const ttl = optionalTtl(ttlMs);
    if (value === undefined) throw new TypeError('a store value cannot be undefined (use delete)');
    await this.#run(`set ${namespace}:${key}`, async () => {
      this.#statements++;
      await this.#keyv.set(recordKey(namespace, key), value, ttl);
    });
  }

  async delete(namespace: Namespace, key: string): Promise<void> {
    await this.#run(`delete ${namespace}:${key}`, async () => {
      this.#statements++;
      await this.#keyv.delete(recordKey(namespace, key));
    });
  }

  async claim(namespace: Namespace, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const ttl = requireTtl(ttlMs);
    return this.#run(`claim ${namespace}:${key}`, async () => {
      const now = Date.now();
      const rows = await this.#query(CLAIM_SQL, recordKey(namespace, key), encodeRecord(value, now + ttl), now);
      return rows.length === 1;
    });
  }

  async compareAndSet<T extends { status: string }>(
    namespace: Namespace,
    key: string,
    expectedStatus: string,
    next: T,
    ttlMs?: number,
  ): Promise<boolean> {
    const ttl = optionalTtl(ttlMs);
    return this.#run(`compareAndSet ${namespace}:${key}`, async () => {
      const now = Date.now();
      const id = recordKey(namespace, key);
      const rows =
        ttl === undefined
          ? await this.#query(CAS_KEEP_EXPIRY_SQL, JSON.stringify(next), id, expectedStatus, now)
          : await this.#query(CAS_NEW_EXPIRY_SQL, encodeRecord(next, now + ttl), id, expectedStatus, now);
      return rows.length === 1;
    });
  }

  async release(namespace: Namespace, key: string, expectedStatus: string): Promise<boolean> {
    return this.#run(`release ${namespace}:${key}`, async () => {
      const rows = await this.#query(RELEASE_SQL, recordKey(namespace, key), expectedStatus, Date.now());
      return rows.length === 1;
    });
  }

  async increment(namespace: Exclude<Namespace, ListableNamespace>, key: string, by: number, ttlMs: number): Promise<number> {
    const ttl = requireTtl(ttlMs);
    return this.#run(`increment ${namespace}:${key}`, async () => {
      const now = Date.now();
      const rows = await this.#query(INCREMENT_SQL, recordKey(namespace, key), by, now + ttl, now, by);
      return Number(rows[0]?.total);
    });
  }

  async list<T>(namespace: ListableNamespace, prefix: string): Promise<Array<{ key: string; value: T }>> {
    return this.#run(`list ${namespace}:${prefix}*`, async () => {
      const head = recordKey(namespace, '');
      // A key range, served by the primary key's index; no LIKE wildcard (or its case folding) gets in the way.
      const { from, to } = prefixRange(head + prefix);
      const rows = await this.#query(LIST_SQL, from, to);
      const now = Date.now();
      const found: Array<{ key: string; value: T }> = [];
      for (const row of rows) {
        const record = decodeRecord(String(row.value));
        if (isLive(record, now)) found.push({ key: String(row.key).slice(head.length), value: record.value as T });
      }
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    });
  }

  async accept(claims: string[], claimTtlMs: number, entry?: { chatId: string; item: InboxEntry }): Promise<AcceptOutcome> {
    const ttl = requireTtl(claimTtlMs);
    return this.#run(`accept ${entry?.chatId ?? ''}`, async () => {
      const now = Date.now();
      const ids = claims.map((claim) => recordKey('dedupe', claim));
      const rows: string[] = [];
      for (const id of ids) rows.push(id, encodeRecord({ status: 'accepted', at: now }, now + ttl));
      const marker = entry === undefined ? '' : queuedChatKey(entry.chatId);
      if (entry !== undefined) {
        rows.push(`${queueOf(entry.chatId)}${entry.item.id}`, encodeRecord(entry.item, undefined));
        rows.push(marker, encodeRecord({ chatId: entry.chatId, oldestAt: entry.item.at }, undefined));
      }
      if (rows.length === 0) return 'queued';
      const inserted = await this.#query(acceptSql(ids.length, rows.length / 2), ...rows, ...ids, ...(ids.length > 0 ? [now] : []), marker);
      return inserted.length > 0 ? 'queued' : 'duplicate';
    });
  }

  async inboxHead<T>(chatId: string, limit: number): Promise<Array<InboxEntry<T>>> {
    return this.#run(`inbox head ${chatId}`, async () => {
      const { from, to } = prefixRange(queueOf(chatId));
      const rows = await this.#query(HEAD_SQL, from, to, limit);
      return rows.map((row) => decodeRecord(String(row.value)).value as InboxEntry<T>);
    });
  }

  async inboxRemove(chatId: string, id: string): Promise<void> {
    await this.#run(`inbox remove ${chatId}`, async () => {
      const { from, to } = prefixRange(queueOf(chatId));
      const marker = queuedChatKey(chatId);
      await this.#query(REMOVE_ITEM_SQL, `${queueOf(chatId)}${id}`);
      await this.#query(RENEW_MARKER_SQL, from, to, marker, from, to);
      await this.#query(DROP_MARKER_SQL, marker, from, to);
    });
  }

  async inboxChats(): Promise<Array<{ chatId: string; oldestAt: number }>> {
    return this.#run('inbox chats', async () => {
      const { from, to } = prefixRange(QUEUED_CHAT);
      const rows = await this.#query(QUEUED_CHATS_SQL, from, to);
      return rows.map((row) => decodeRecord(String(row.value)).value as { chatId: string; oldestAt: number });
    });
  }

  async inboxSize(): Promise<number> {
    return this.#run('inbox size', async () => {
      const { from, to } = prefixRange(QUEUE);
      const rows = await this.#query(QUEUE_SIZE_SQL, from, to);
      return Number(rows[0]?.size ?? 0);
    });
  }

  /** Every statement this store runs on the backing file goes through here; `statements` counts them (bench). */
  get roundTrips(): number {
    return this.#statements;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#run(`publish ${channel}`, async () => this.#channels.publish(channel, message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    return this.#run(`subscribe ${channel}`, async () => this.#channels.subscribe(channel, handler));
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      await this.#adapter.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopPurge();
    this.#channels.clear();
    await this.#keyv.disconnect();
  }

  /** Deletes expired rows; returns how many. Runs on open and then periodically. */
  async purgeExpired(): Promise<number> {
    return this.#run('purge', async () => (await this.#query(PURGE_SQL, Date.now())).length);
  }

  async #query(sql: string, ...params: unknown[]): Promise<Rows> {
    this.#statements++;
    return (await this.#adapter.query(sql, ...params)) as Rows;
  }

  async #run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreError(`sqlite store is closed (${what})`);
    return storeOperation(`sqlite ${what}`, operation);
  }
}
