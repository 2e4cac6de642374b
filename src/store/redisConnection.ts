import type { createClient } from '@keyv/redis';
import type { Logger } from '../log.ts';
import { StoreError } from './storeError.ts';

export type RedisClient = ReturnType<typeof createClient>;

export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects `client`, failing with a StoreError naming the server when it does not answer within
 * `connectTimeoutMs` (the client is then destroyed). Logs one warning per outage, not one per reconnect
 * attempt; the 'error' listener is also what keeps an outage from crashing the process.
 */
export async function connectRedis(
  client: RedisClient,
  opts: { logger: Logger; display: string; connectTimeoutMs: number; role: string },
): Promise<void> {
  let down = false;
  client.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    opts.logger.warn({ err: error, redis: opts.display, role: opts.role }, 'redis unreachable, reconnecting');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    opts.logger.info({ redis: opts.display, role: opts.role }, 'redis reachable again');
  });
  const connecting = client.connect();
  connecting.catch(() => undefined);
  try {
    await withTimeout(connecting, opts.connectTimeoutMs, `no answer within ${opts.connectTimeoutMs} ms`);
    // A server with a password accepts the connection and refuses every command after it: ask one now, so a
    // missing or wrong password stops the start instead of every later turn.
    await withTimeout(client.ping(), opts.connectTimeoutMs, `no answer to PING within ${opts.connectTimeoutMs} ms`);
  } catch (error) {
    client.destroy();
    const said = (error as Error).message;
    const hint = /NOAUTH|WRONGPASS|AUTH/i.test(said) ? ' (the password goes in STORE_URL: redis://:PASSWORD@HOST:PORT or rediss://USER:PASSWORD@HOST:PORT)' : '';
    throw new StoreError(`cannot reach redis at ${opts.display}: ${said}${hint}`, { cause: error });
  }
}

/** Closes a client without hanging: close() waits for pending replies, which never come while the server is away. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady) await client.close();
  else client.destroy();
}
