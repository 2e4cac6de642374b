import type { Logger } from '../ops/log.ts';
import { deliverMessage } from './deliverMessage.ts';
import { closeRedis, connectRedis, type RedisClient } from './redisConnection.ts';
import { StoreError } from './storeError.ts';

/**
 * The store's subscriber connection. A Redis connection in subscriber mode can run no other command, so it is
 * a duplicate of the store's client, opened on the first subscribe and closed with the store. node-redis
 * subscribes again by itself after a reconnect; messages published while it was away are lost (Redis pub/sub
 * is at most once), which is why subscribers treat a message as a hint to re-read the store.
 */
export class RedisSubscriber {
  readonly #source: RedisClient;
  readonly #logger: Logger;
  readonly #display: string;
  readonly #connectTimeoutMs: number;
  #connection: Promise<RedisClient> | undefined;
  #closed = false;

  constructor(source: RedisClient, opts: { logger: Logger; display: string; connectTimeoutMs: number }) {
    this.#source = source;
    this.#logger = opts.logger;
    this.#display = opts.display;
    this.#connectTimeoutMs = opts.connectTimeoutMs;
  }

  /** `channel` is the full Redis channel name (key prefix included). */
  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    const client = await this.#connect();
    // Unsubscribing while the server is away cannot reach it: the flag makes the handler inert regardless.
    let active = true;
    const listener = (message: string): void => {
      if (active) deliverMessage(handler, message, channel, this.#logger);
    };
    await client.subscribe(channel, listener);
    return async () => {
      if (!active) return;
      active = false;
      if (this.#closed || !client.isReady) return;
      try {
        await client.unsubscribe(channel, listener);
      } catch (error) {
        this.#logger.warn({ err: error, channel }, 'redis unsubscribe failed; the handler stays inert');
      }
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    if (connection === undefined) return;
    const client = await connection.catch(() => undefined);
    if (client !== undefined) await closeRedis(client);
  }

  #connect(): Promise<RedisClient> {
    if (this.#connection === undefined) {
      const connection = this.#open();
      this.#connection = connection;
      // A failed connect is retried by the next subscribe.
      connection.catch(() => {
        if (this.#connection === connection) this.#connection = undefined;
      });
    }
    return this.#connection;
  }

  async #open(): Promise<RedisClient> {
    const client = this.#source.duplicate();
    await connectRedis(client, { logger: this.#logger, display: this.#display, connectTimeoutMs: this.#connectTimeoutMs, role: 'subscriber' });
    if (this.#closed) {
      await closeRedis(client);
      throw new StoreError('redis store is closed (subscribe)');
    }
    return client;
  }
}
