// A MAC on the records that grant power (session grants, open questions, approval decisions). The store is reachable by more
// than the bot: a skill with network access may reach Redis, and with the sandbox off a script may write the
// SQLite file. A record it writes there has no valid MAC, because the key lives only in the bot's memory (from
// SKILLBOT_STATE_KEY or a 0600 file the sandbox never exposes): such a record is ignored and audited.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What kind of record a MAC is for, so one kind's MAC never validates another. */
export type SealedKind = 'grant' | 'approval' | 'pending';

export interface RecordSealer {
  /** HMAC-SHA256 (hex) of the fields, bound to the record's kind and store key. */
  seal(kind: SealedKind, key: string, fields: Record<string, unknown>): string;
  verify(kind: SealedKind, key: string, fields: Record<string, unknown>, mac: unknown): boolean;
}

/** JSON with object keys sorted at every level (and undefined dropped), so the MAC survives a store round trip. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function createRecordSealer(secret: Buffer): RecordSealer {
  if (secret.length < 16) throw new RangeError('the state key must be at least 16 bytes');
  const seal = (kind: SealedKind, key: string, fields: Record<string, unknown>): string =>
    createHmac('sha256', secret).update(`${kind}\n${key}\n${canonicalJson(fields)}`).digest('hex');
  return {
    seal,
    verify(kind, key, fields, mac) {
      if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
      return timingSafeEqual(Buffer.from(seal(kind, key, fields), 'hex'), Buffer.from(mac, 'hex'));
    },
  };
}
