import type { Namespace } from './types.ts';

/**
 * The one record format of every backend, Keyv's own: the JSON text `{"value":…,"expires":<epoch ms>}`
 * (`expires` absent when the record never expires). The Keyv instances are configured with plain
 * JSON.stringify/JSON.parse, so the SQL and Lua of the atomic operations read exactly what Keyv wrote.
 */
export interface StoredRecord {
  value: unknown;
  expires?: number | null;
}

export function encodeRecord(value: unknown, expires: number | undefined): string {
  if (value === undefined) throw new TypeError('a store value cannot be undefined (use delete)');
  return JSON.stringify(expires === undefined ? { value } : { value, expires });
}

/** Parses a stored record; text that is not one is a store error, not a missing record. */
export function decodeRecord(text: string): StoredRecord {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || !('value' in parsed)) {
    throw new Error('stored text is not a {value, expires} record');
  }
  return parsed as StoredRecord;
}

export function isLive(record: StoredRecord, now: number): boolean {
  return typeof record.expires !== 'number' || record.expires > now;
}

/** The key as the backend sees it: `<namespace>:<key>` (Redis puts its key prefix before it). */
export function recordKey(namespace: Namespace, key: string): string {
  return `${namespace}:${key}`;
}

/** A TTL in whole milliseconds; a zero, negative or non-finite TTL is a programming error. */
export function requireTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive number, got ${ttlMs}`);
  return Math.ceil(ttlMs);
}

/** An optional TTL: absent means the record does not expire. */
export function optionalTtl(ttlMs: number | undefined): number | undefined {
  return ttlMs === undefined ? undefined : requireTtl(ttlMs);
}

export function hasStatus(value: unknown, status: string): boolean {
  return typeof value === 'object' && value !== null && (value as { status?: unknown }).status === status;
}
