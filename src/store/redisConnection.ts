import type { createClient } from '@keyv/redis';
import type { Logger } from '../ops/log.ts';
import { StoreError } from './storeError.ts';

export type RedisClient = ReturnType<typeof createClient>;

/** The wait itself ran out (as opposed to the server saying no). */
class TimeoutError extends Error {}

export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects `client`, failing with a StoreError naming the server and STORE_URL when it does not answer within
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
  // The client retries every failure, even on start: a refused password or certificate would only show as a
  // timeout. Keep the last failure for the message, and stop at once on one that retrying cannot fix.
  let lastError: unknown;
  let giveUp: (error: unknown) => void = () => undefined;
  const hopeless = new Promise<never>((_resolve, reject) => {
    giveUp = reject;
  });
  hopeless.catch(() => undefined);
  const watch = (error: unknown): void => {
    lastError = error;
    if (isAuthError(error) || isTlsError(error)) giveUp(error);
  };
  client.on('error', watch);
  const connecting = client.connect();
  connecting.catch(() => undefined);
  try {
    await withTimeout(Promise.race([connecting, hopeless]), opts.connectTimeoutMs, `no answer within ${opts.connectTimeoutMs} ms`);
    // A server with a password accepts the connection and refuses every command after it: ask one now, so a
    // missing or wrong password stops the start instead of every later turn.
    await withTimeout(client.ping(), opts.connectTimeoutMs, `no answer to PING within ${opts.connectTimeoutMs} ms`);
  } catch (error) {
    client.destroy();
    // A timeout says little by itself: the failure behind it is what the operator can act on.
    const behind = error instanceof TimeoutError && lastError !== undefined;
    const cause = behind ? lastError : error;
    const said = behind ? `${messageOf(error)} (last error: ${messageOf(lastError)})` : messageOf(error);
    throw new StoreError(`cannot reach redis at ${opts.display} (STORE_URL): ${said}${hint(cause, isTlsClient(client))}`, { cause });
  } finally {
    client.off('error', watch);
  }
}

/** Node's codes for a chain that ends in no CA this process trusts. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** The first line: OpenSSL's messages end in a newline, and a hint after it would be cut where lines are. */
function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** A missing or refused password, or one given to a server that has none (its message says so). */
function isAuthError(error: unknown): boolean {
  return /^(NOAUTH|WRONGPASS|ERR AUTH)\b/.test(messageOf(error));
}

/** Certificate and handshake failures: Node's codes for them are OpenSSL's names (…CERT…), ERR_TLS_* and ERR_SSL_*. */
function isTlsError(error: unknown): boolean {
  return /CERT|^ERR_TLS_|^ERR_SSL_/.test(codeOf(error));
}

function isTlsClient(client: RedisClient): boolean {
  const socket = client.options?.socket;
  return socket !== undefined && 'tls' in socket && socket.tls === true;
}

/** What to change, for the failures an operator meets when first pointing STORE_URL at a server. */
function hint(error: unknown, tls: boolean): string {
  const code = codeOf(error);
  if (/^(NOAUTH|WRONGPASS)\b/.test(messageOf(error))) return ' (the password goes in STORE_URL: redis://:PASSWORD@HOST:PORT or rediss://USER:PASSWORD@HOST:PORT)';
  if (UNTRUSTED.has(code)) {
    return " (the server's TLS certificate is not signed by a CA this process trusts: for a private CA, start skillbot with NODE_EXTRA_CA_CERTS=/path/to/ca.pem)";
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return " (STORE_URL's host must be a name or address the server's TLS certificate was issued for)";
  // node-redis's own errors carry no code: known by their fixed messages.
  const said = messageOf(error);
  if (!tls && (code === 'ECONNRESET' || said === 'Socket closed unexpectedly')) {
    return ' (if the server speaks TLS, use rediss://)';
  }
  // A plain server reads a TLS hello as the start of a command and waits for the rest: no error, only silence.
  const silent = said === 'Connection timeout' || (error instanceof TimeoutError && !said.includes('PING'));
  if (tls && (silent || code === 'ERR_SSL_WRONG_VERSION_NUMBER')) return ' (if the server does not speak TLS on that port, use redis://)';
  return '';
}

/** Closes a client without hanging: close() waits for pending replies, which never come while the server is away. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady) await client.close();
  else client.destroy();
}
