import KeyvRedis, { createClient } from '@keyv/redis';
import Keyv from 'keyv';
import type { Logger } from '../log.ts';
import { closeRedis, connectRedis, type RedisClient, withTimeout } from './redisConnection.ts';
import { RedisSubscriber } from './redisSubscriber.ts';
import { StoreError, storeOperation } from './storeError.ts';
import { decodeRecord, encodeRecord, isLive, optionalTtl, recordKey, requireTtl } from './storedRecord.ts';
import type { Namespace, Store } from './types.ts';

/**
 * Compare-and-set in one server-side step. KEYS[1] the record; ARGV: expected status, the new value's JSON,
 * new TTL in ms (0: keep the record's expiry), the caller's clock in ms (Keyv's `expires` is client time).
 * The value JSON is spliced in as text, never re-encoded by cjson (which would turn [] into {}).
 */
const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or type(record.value) ~= 'table' or record.value.status ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[4])
local expires = record.expires
if type(expires) == 'number' and expires <= now then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], '{"value":' .. ARGV[2] .. ',"expires":' .. string.format('%d', now + ttl) .. '}', 'PX', ttl)
elseif type(expires) == 'number' then
  redis.call('SET', KEYS[1], '{"value":' .. ARGV[2] .. ',"expires":' .. string.format('%d', expires) .. '}', 'KEEPTTL')
else
  redis.call('SET', KEYS[1], '{"value":' .. ARGV[2] .. '}')
end
return 1`;

/**
 * Delete only a live record with the expected status. KEYS[1] the record; ARGV: expected status, the
 * caller's clock in ms.
 */
const RELEASE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or type(record.value) ~= 'table' or record.value.status ~= ARGV[1] then return 0 end
local expires = record.expires
if type(expires) == 'number' and expires <= tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

const MGET_BATCH = 500;

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * The scale-out store. Plain set/delete go through Keyv on @keyv/redis; claim is `SET NX PX`, compare-and-set a
 * Lua script, release another, list a SCAN (never KEYS), all on the same client and keys. Publish goes out on that
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
  #closed = false;

  private constructor(client: RedisClient, keyPrefix: string, timeoutMs: number, subscriber: RedisSubscriber) {
    this.#client = client;
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
    opts: { logger: Logger; keyPrefix: string; connectTimeoutMs: number },
  ): Promise<RedisStore> {
    const client: RedisClient = createClient({
      url: where.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: opts.connectTimeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
      },
    });
    await connectRedis(client, { logger: opts.logger, display: where.display, connectTimeoutMs: opts.connectTimeoutMs, role: 'store' });
    opts.logger.debug({ redis: where.display }, 'redis store open');
    const subscriber = new RedisSubscriber(client, { logger: opts.logger, display: where.display, connectTimeoutMs: opts.connectTimeoutMs });
    return new RedisStore(client, opts.keyPrefix, opts.connectTimeoutMs, subscriber);
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
      await this.#keyv.set(this.#key(namespace, key), value, ttl);
    });
  }

  async delete(namespace: Namespace, key: string): Promise<void> {
    await this.#run(`delete ${namespace}:${key}`, async () => {
      await this.#keyv.delete(this.#key(namespace, key));
    });
  }

  async claim(namespace: Namespace, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const ttl = requireTtl(ttlMs);
    return this.#run(`claim ${namespace}:${key}`, async () => {
      const reply = await this.#client.set(this.#key(namespace, key), encodeRecord(value, Date.now() + ttl), {
        condition: 'NX',
        expiration: { type: 'PX', value: ttl },
      });
      return reply === 'OK';
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

  async release(namespace: Namespace, key: string, expectedStatus: string): Promise<boolean> {
    return this.#run(`release ${namespace}:${key}`, async () => {
      const reply = await this.#client.eval(RELEASE_SCRIPT, {
        keys: [this.#key(namespace, key)],
        arguments: [expectedStatus, String(Date.now())],
      });
      return reply === 1;
    });
  }

  async list<T>(namespace: Namespace, prefix: string): Promise<Array<{ key: string; value: T }>> {
    return this.#run(`list ${namespace}:${prefix}*`, async () => {
      const head = this.#key(namespace, '');
      const keys = new Set<string>(); // SCAN may return a key twice
      let cursor = '0';
      do {
        const reply = await this.#client.scan(cursor, { MATCH: `${globEscape(head + prefix)}*`, COUNT: 1_000 });
        cursor = String(reply.cursor);
        for (const found of reply.keys) keys.add(String(found));
      } while (cursor !== '0');
      const ids = [...keys];
      const now = Date.now();
      const found: Array<{ key: string; value: T }> = [];
      for (let start = 0; start < ids.length; start += MGET_BATCH) {
        const batch = ids.slice(start, start + MGET_BATCH);
        const texts = await this.#client.mGet(batch);
        batch.forEach((id, index) => {
          const text = texts[index];
          if (typeof text !== 'string') return; // expired between SCAN and MGET
          const record = decodeRecord(text);
          if (isLive(record, now)) found.push({ key: id.slice(head.length), value: record.value as T });
        });
      }
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#run(`publish ${channel}`, async () => {
      await this.#client.publish(this.#prefix + channel, message);
    });
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    return this.#run(`subscribe ${channel}`, async () => this.#subscriber.subscribe(this.#prefix + channel, handler));
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

  async #run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    // Checked first: once closed, @keyv/redis would quietly open a new connection.
    if (this.#closed) throw new StoreError(`redis store is closed (${what})`);
    return storeOperation(`redis ${what}`, operation);
  }
}
