import { type Logger, silentLogger } from '../ops/log.ts';
import { MemoryStore } from './memoryStore.ts';
import { RedisStore } from './redisStore.ts';
import { SqliteStore } from './sqliteStore.ts';
import { parseStoreUrl } from '../config/storeUrl.ts';
import type { Store } from './types.ts';

export { DEFAULT_STORE_URL, StoreUrlError, parseStoreUrl, redactStoreUrl } from '../config/storeUrl.ts';
export { StoreError } from './storeError.ts';

export interface CreateStoreOptions {
  logger?: Logger;
  /** Redis only: put before every key, so several bots (or test runs) can share one server. */
  keyPrefix?: string;
  /** sqlite and memory: how often expired records are deleted (keyv 5 never does it by itself). */
  purgeIntervalMs?: number;
  /** Redis only: how long to wait for the server on start, and for a ping. */
  connectTimeoutMs?: number;
  /** A relative sqlite PATH is relative to this folder. */
  cwd?: string;
  /** Redis only: this bot instance, named on its connections so others see when it is gone. */
  instanceId?: string;
}

const DEFAULTS = { keyPrefix: 'skillbot:', purgeIntervalMs: 60_000, connectTimeoutMs: 5_000 };

/**
 * Opens the store STORE_URL names: `sqlite://PATH` (embedded; its folder is created on first run), `redis://HOST:PORT`
 * or `memory://`. A URL of any other form throws StoreUrlError; a store that cannot be opened throws StoreError.
 */
export async function createStore(url: string, opts: CreateStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url, opts.cwd);
  const logger = opts.logger ?? silentLogger();
  const purgeIntervalMs = opts.purgeIntervalMs ?? DEFAULTS.purgeIntervalMs;
  switch (location.kind) {
    case 'memory':
      return new MemoryStore({ logger, purgeIntervalMs });
    case 'sqlite':
      return SqliteStore.open(location.path, { logger, purgeIntervalMs });
    case 'redis':
      return RedisStore.open(location, {
        logger,
        keyPrefix: opts.keyPrefix ?? DEFAULTS.keyPrefix,
        connectTimeoutMs: opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
        ...(opts.instanceId === undefined ? {} : { instanceId: opts.instanceId }),
      });
  }
}
