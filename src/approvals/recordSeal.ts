// A MAC on the records that grant power (session grants, open questions, approval decisions). The store is reachable by more
// than the bot: a skill with network access may reach Redis, and with the sandbox off a script may write the
// SQLite file. A record it writes there has no valid MAC, because the key lives only in the bot's memory (from
// SKILLBOT_STATE_KEY or a 0600 file the sandbox never exposes): such a record is ignored and audited.
import { canonicalJson, SEAL_LABELS, stateKeySealer } from '../keys/sealing.ts';

/** What kind of record a MAC is for, so one kind's MAC never validates another. */
type SealedKind = 'grant' | 'approval' | 'pending';

export interface RecordSealer {
  /** HMAC-SHA256 (hex) of the fields, bound to the record's kind and store key. */
  seal(kind: SealedKind, key: string, fields: Record<string, unknown>): string;
  verify(kind: SealedKind, key: string, fields: Record<string, unknown>, mac: unknown): boolean;
}

export function createRecordSealer(secret: Buffer): RecordSealer {
  const sealer = stateKeySealer(secret);
  return {
    seal: (kind, key, fields) => sealer.seal(SEAL_LABELS[kind], key, canonicalJson(fields)),
    verify: (kind, key, fields, mac) => sealer.verify(SEAL_LABELS[kind], [key, canonicalJson(fields)], mac),
  };
}
