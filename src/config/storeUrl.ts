import path from 'node:path';

export const DEFAULT_STORE_URL = 'sqlite://./data/skillbot.sqlite';

const ACCEPTED = 'sqlite://PATH (e.g. sqlite://./data/skillbot.sqlite), redis://HOST:PORT or memory://';

/** STORE_URL names no store we can open. The message says what is accepted. */
export class StoreUrlError extends Error {
  override readonly name = 'StoreUrlError';
  constructor(url: string, reason: string) {
    super(`STORE_URL "${redactStoreUrl(url)}" ${reason}: use ${ACCEPTED}`);
  }
}

export type StoreLocation =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string }
  | { kind: 'redis'; url: string; display: string };

/** Hides a password in a URL before it reaches a message or a log line. */
export function redactStoreUrl(url: string): string {
  if (/^sqlite:/i.test(url)) return url; // a file path: an '@' in it is no password
  // Up to the last '@': a password someone forgot to percent-encode may hold '@' or '/' itself.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/).*@/i, (_all, scheme: string) => `${scheme}***@`);
}

/** Reads STORE_URL. A relative sqlite PATH is relative to `cwd`. */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  const trimmed = url.trim();
  if (trimmed === '') throw new StoreUrlError(url, 'is empty');
  if (trimmed === 'memory://') return { kind: 'memory' };
  if (trimmed.startsWith('sqlite://')) {
    const file = trimmed.slice('sqlite://'.length);
    if (file === '') throw new StoreUrlError(url, 'has no file path');
    return { kind: 'sqlite', path: path.resolve(cwd, file) };
  }
  if (/^rediss?:\/\//.test(trimmed)) {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw new StoreUrlError(url, 'is not a valid URL');
    }
    if (parsed.hostname === '') throw new StoreUrlError(url, 'has no host');
    if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d+$/.test(parsed.pathname)) {
      throw new StoreUrlError(url, 'has a path that is not a database number');
    }
    return { kind: 'redis', url: trimmed, display: `${parsed.hostname}:${parsed.port || '6379'}` };
  }
  throw new StoreUrlError(url, 'is not a supported store');
}
