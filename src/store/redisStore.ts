import KeyvRedis, { createClient } from '@keyv/redis';
import Keyv from 'keyv';
import type { Logger } from '../ops/log.ts';
import { clientNameFor, ConnectedInstances } from './redisClients.ts';
import { closeRedis, connectRedis, type RedisClient, withTimeout } from './redisConnection.ts';
import { RedisSubscriber } from './redisSubscriber.ts';
import { StoreError, storeOperation } from './storeError.ts';
import { decodeRecord, encodeRecord, isLive, optionalTtl, recordKey, requireTtl } from './storedRecord.ts';
import { prefixRange } from './keyRange.ts';
import { ACCEPT_SCRIPT, CAS_SCRIPT, HEAD_SCRIPT, INCREMENT_SCRIPT, RELEASE_SCRIPT, REMOVE_SCRIPT } from './redisScripts.ts';
import { type AcceptOutcome, type InboxEntry, LISTABLE_NAMESPACES, type ListableNamespace, type Namespace, type Store } from './types.ts';

const MGET_BATCH = 500;
const LISTABLE = new Set<Namespace>(LISTABLE_NAMESPACES);

/**
 * The scale-out store. Plain set/delete go through Keyv on @keyv/redis (a listable namespace's in a MULTI that
 * also indexes the key); claim is `SET NX PX`, compare-and-set a Lua script, release another, list a range of
 * the namespace's key index, the inbox sorted sets and hashes driven by Lua; never SCAN or KEYS, so no
 * operation's cost depends on how many keys the server holds. Publish goes out on that
 * client too; subscriptions need a connection of their own (RedisSubscriber). Channels carry the key prefix, so
 * bots with different prefixes on one server do not hear each other. Commands fail at once while the server is
 * away (no offline queue), so an outage is an error to the caller, not a hang or a "not found".
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly #client: RedisClient;
  readonly #keyv: Keyv;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #subscriber: RedisSubscriber;
  readonly #connected: ConnectedInstances | undefined;
  #closed = false;
  #roundTrips = 0;

  private constructor(client: RedisClient, keyPrefix: string, timeoutMs: number, subscriber: RedisSubscriber, clientName: string | undefined) {
    this.#client = client;
    this.#connected = clientName === undefined ? undefined : new ConnectedInstances(client, clientName);
    this.#prefix = keyPrefix;
    this.#timeoutMs = timeoutMs;
    this.#subscriber = subscriber;
    this.#keyv = new Keyv(new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true }), {
      namespace: undefined,
      useKeyPrefix: false,
      // keyv 5 otherwise swallows store errors and answers "not found".
      throwOnErrors: true,
      serialize: JSON.stringify,
      deserialize: JSON.parse,
    });
  }

  /** Connects, failing with a clear error when the server does not answer within `connectTimeoutMs`. */
  static async open(
    where: { url: string; display: string },
    opts: { logger: Logger; keyPrefix: string; connectTimeoutMs: number; instanceId?: string },
  ): Promise<RedisStore> {
    const name = opts.instanceId === undefined ? undefined : clientNameFor(opts.instanceId);
    const client: RedisClient = createClient({
      url: where.url,
      // Named on every connect, so other instances see this one's connection (isConnected).
      ...(name === undefined ? {} : { name }),
      disableOfflineQueue: true,
      socket: {
        connectTimeout: opts.connectTimeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
      },
    });
    await connectRedis(client, { logger: opts.logger, display: where.display, connectTimeoutMs: opts.connectTimeoutMs, role: 'store' });
    opts.logger.debug({ redis: where.display }, 'redis store open');
    const subscriber = new RedisSubscriber(client, { logger: opts.logger, display: where.display, connectTimeoutMs: opts.connectTimeoutMs });
    return new RedisStore(client, opts.keyPrefix, opts.connectTimeoutMs, subscriber, name);
  }

  async get<T>(namespace: Namespace, key: string): Promise<T | undefined> {
    // Read directly rather than through Keyv: Keyv's get deletes a record it thinks expired, which could remove
    // a fresh claim made on that key in between. Redis drops expired keys itself.
    return this.#run(`get ${namespace}:${key}`, async () => {
      const text = await this.#client.get(this.#key(namespace, key));
      if (text === null) return undefined;
      const record = decodeRecord(text);
      return isLive(record, Date.now()) ? (record.value as T) : undefined;
    });
  }

  async set(namespace: Namespace, key: string, value: unknown, ttlMs?: number): Promise<void> {
    const ttl = optionalTtl(ttlMs);
    if (value === undefined) throw new TypeError('a store value cannot be undefined (use delete)');
    await this.#run(`set ${namespace}:${key}`, async () => {
      const id = this.#key(namespace, key);
      if (!LISTABLE.has(namespace)) {
        await this.#keyv.set(id, value, ttl);
        return;
      }
      // A listable namespace keeps its keys in an index as well, in the same transaction.
      const text = encodeRecord(value, ttl === undefined ? undefined : Date.now() + ttl);
      const write = this.#client.multi().zAdd(this.#index(namespace), { score: 0, value: id });
      await (ttl === undefined ? write.set(id, text) : write.set(id, text, { expiration: { type: 'PX', value: ttl } })).exec();
    });
  }

  async delete(namespace: Namespace, key: string): Promise<void> {
    await this.#run(`delete ${namespace}:${key}`, async () => {
      const id = this.#key(namespace, key);
      if (LISTABLE.has(namespace)) await this.#client.multi().del(id).zRem(this.#index(namespace), id).exec();
      else await this.#keyv.delete(id);
    });
  }

  async claim(namespace: Namespace, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const ttl = requireTtl(ttlMs);
    return this.#run(`claim ${namespace}:${key}`, async () => {
      const id = this.#key(namespace, key);
      const options = { condition: 'NX', expiration: { type: 'PX', value: ttl } } as const;
      const text = encodeRecord(value, Date.now() + ttl);
      if (!LISTABLE.has(namespace)) return (await this.#client.set(id, text, options)) === 'OK';
      // Indexed whether or not the claim wins: an index entry without its record is skipped (and dropped) by list.
      const [, reply] = await this.#client.multi().zAdd(this.#index(namespace), { score: 0, value: id }).set(id, text, options).exec();
      return String(reply) === 'OK';
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
      const reply = await this.#client.eval(CAS_SCRIPT, {
        keys: [this.#key(namespace, key)],
        arguments: [expectedStatus, JSON.stringify(next), String(ttl ?? 0), String(Date.now())],
      });
      return reply === 1;
    });
  }

  async increment(namespace: Exclude<Namespace, ListableNamespace>, key: string, by: number, ttlMs: number): Promise<number> {
    const ttl = requireTtl(ttlMs);
    return this.#run(`increment ${namespace}:${key}`, async () => {
      const reply = await this.#client.eval(INCREMENT_SCRIPT, { keys: [this.#key(namespace, key)], arguments: [String(by), String(ttl), String(Date.now())] });
      return Number(reply);
    });
  }

  async release(namespace: Namespace, key: string, expectedStatus: string): Promise<boolean> {
    return this.#run(`release ${namespace}:${key}`, async () => {
      const reply = await this.#client.eval(RELEASE_SCRIPT, {
        keys: [this.#key(namespace, key)],
        arguments: [expectedStatus, String(Date.now())],
      });
      return reply === 1;
    });
  }

  async list<T>(namespace: ListableNamespace, prefix: string): Promise<Array<{ key: string; value: T }>> {
    return this.#run(`list ${namespace}:${prefix}*`, async () => {
      const head = this.#key(namespace, '');
      const index = this.#index(namespace);
      const { from, to } = prefixRange(head + prefix);
      // The namespace's index, sorted by key: a lexicographic range costs what it returns, never a SCAN.
      const ids = await this.#client.zRange(index, `[${from}`, `(${to}`, { BY: 'LEX' });
      const now = Date.now();
      const found: Array<{ key: string; value: T }> = [];
      const gone: string[] = [];
      for (let start = 0; start < ids.length; start += MGET_BATCH) {
        const batch = ids.slice(start, start + MGET_BATCH);
        const texts = await this.#client.mGet(batch);
        batch.forEach((id, index) => {
          const text = texts[index];
          if (typeof text !== 'string') {
            gone.push(id); // expired or deleted: its index entry goes too
            return;
          }
          const record = decodeRecord(text);
          if (isLive(record, now)) found.push({ key: id.slice(head.length), value: record.value as T });
        });
      }
      if (gone.length > 0) await this.#client.zRem(index, gone);
      return found;
    });
  }

  async accept(claims: string[], claimTtlMs: number, entry?: { chatId: string; item: InboxEntry }): Promise<AcceptOutcome> {
    const ttl = requireTtl(claimTtlMs);
    return this.#run(`accept ${entry?.chatId ?? ''}`, async () => {
      const now = Date.now();
      const chatId = entry?.chatId ?? '';
      const reply = await this.#client.eval(ACCEPT_SCRIPT, {
        keys: [...this.#queueKeys(chatId), ...claims.map((claim) => this.#key('dedupe', claim))],
        arguments: [
          entry === undefined ? '0' : '1',
          encodeRecord({ status: 'accepted', at: now }, now + ttl),
          String(ttl),
          entry?.item.id ?? '',
          String(entry?.item.at ?? 0),
          entry === undefined ? '' : JSON.stringify(entry.item),
          chatId,
        ],
      });
      return reply === 1 ? 'queued' : 'duplicate';
    });
  }

  async inboxHead<T>(chatId: string, limit: number): Promise<Array<InboxEntry<T>>> {
    return this.#run(`inbox head ${chatId}`, async () => {
      const [queue, items] = this.#queueKeys(chatId);
      const reply = (await this.#client.eval(HEAD_SCRIPT, { keys: [queue, items], arguments: [String(limit)] })) as unknown[];
      return reply.filter((text): text is string => typeof text === 'string').map((text) => JSON.parse(text) as InboxEntry<T>);
    });
  }

  async inboxRemove(chatId: string, id: string): Promise<void> {
    await this.#run(`inbox remove ${chatId}`, async () => {
      await this.#client.eval(REMOVE_SCRIPT, { keys: this.#queueKeys(chatId), arguments: [id, chatId] });
    });
  }

  async inboxChats(): Promise<Array<{ chatId: string; oldestAt: number }>> {
    return this.#run('inbox chats', async () => {
      const reply = await this.#client.zRangeWithScores(this.#queueKeys('')[2], 0, -1);
      return reply.map(({ value, score }) => ({ chatId: String(value), oldestAt: score }));
    });
  }

  async inboxSize(): Promise<number> {
    return this.#run('inbox size', async () => Number((await this.#client.get(this.#queueKeys('')[3])) ?? 0));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#run(`publish ${channel}`, async () => {
      await this.#client.publish(this.#prefix + channel, message);
    });
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    return this.#run(`subscribe ${channel}`, async () => this.#subscriber.subscribe(this.#prefix + channel, handler));
  }

  async isConnected(instanceId: string): Promise<boolean | undefined> {
    if (this.#closed || this.#connected === undefined) return undefined;
    return (await this.#connected.get())?.has(clientNameFor(instanceId));
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      await withTimeout(this.#client.ping(), this.#timeoutMs, 'ping timed out');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#subscriber.close();
    await closeRedis(this.#client);
  }

  #key(namespace: Namespace, key: string): string {
    return this.#prefix + recordKey(namespace, key);
  }

  /** The sorted set of a listable namespace's keys (full Redis keys, score 0, so ordered by key). */
  #index(namespace: Namespace): string {
    return `${this.#prefix}index:${namespace}`;
  }

  /** A chat's queue and messages, the waiting chats, the waiting-message counter (see ACCEPT_SCRIPT). */
  #queueKeys(chatId: string): [string, string, string, string] {
    const base = `${this.#prefix}chats:`;
    return [`${base}queue:${chatId}`, `${base}queue-items:${chatId}`, `${base}queued-chats`, `${base}queue-size`];
  }

  /** Store operations sent to the server (each one round trip, a listing one per batch). For the bench. */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  async #run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    this.#roundTrips++;
    // Checked first: once closed, @keyv/redis would quietly open a new connection.
    if (this.#closed) throw new StoreError(`redis store is closed (${what})`);
    return storeOperation(`redis ${what}`, operation);
  }
}
