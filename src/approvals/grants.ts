// Session grants: the remembered `yes_in_session` answer for one (world, chat, skill, content hash, requester).
// Each carries a MAC under the state key (recordSeal.ts): a row written into the store by anything but the bot
// is ignored, and reported through `onRejected` (the app audits it).
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/types.ts';
import { createRecordSealer, type RecordSealer } from './recordSeal.ts';

export interface GrantKey {
  readonly worldId: string;
  readonly chatId: string;
  readonly skillId: string;
  /** The skill's content hash: editing any file of the skill gives a new key, so the next run asks again. */
  readonly skillHash: string;
  /** The person whose request was approved: another person in the same thread is asked again. */
  readonly requesterId: string;
  /** The store key. */
  readonly id: string;
}

export interface Grant {
  worldId: string;
  chatId: string;
  skillId: string;
  skillHash: string;
  requesterId: string;
  grantedBy: string;
  grantedAt: number;
  expiresAt: number;
  /** HMAC-SHA256 of the fields above and the store key, under the state key. */
  mac: string;
}

/** One chat (optionally one skill in it), one skill everywhere, or everything. */
export type GrantRevokeFilter = { chatId: string; skillId?: string; requesterId?: string } | { skillId: string } | { all: true };

export interface Grants {
  /** How long a grant lasts (the card says so). */
  readonly ttlMs: number;
  has(key: GrantKey): Promise<boolean>;
  get(key: GrantKey): Promise<Grant | undefined>;
  add(key: GrantKey, by: string): Promise<void>;
  /** Grants whose MAC holds (forged rows are left out). */
  list(filter?: { worldId?: string; chatId?: string }): Promise<Grant[]>;
  /** Returns how many grants were removed. */
  revoke(filter: GrantRevokeFilter): Promise<number>;
}

export interface GrantsOptions {
  ttlMs?: number;
  now?: () => number;
  /** Without one, a key of this object's own: only grants it added verify. */
  sealer?: RecordSealer;
  /** A stored row that failed the MAC check (or names another key than its own): ignored, and reported here. */
  onRejected?: (key: GrantKey, row: unknown) => Promise<void>;
}

export const DEFAULT_GRANT_TTL_MS = 24 * 60 * 60 * 1000;

const enc = encodeURIComponent;

export function grantKey(worldId: string, chatId: string, skillId: string, skillHash: string, requesterId: string): GrantKey {
  return {
    worldId,
    chatId,
    skillId,
    skillHash,
    requesterId,
    id: `${enc(worldId)}/${enc(chatId)}/${enc(skillId)}/${enc(skillHash)}/${enc(requesterId)}`,
  };
}

/**
 * The chat a "yes for this routine" grant is kept under in place of a thread: every run of the routine (each in
 * a new thread) finds it; removing the routine revokes it (`revoke({ chatId: routineGrantChat(id) })`).
 */
export function routineGrantChat(routineId: string): string {
  return `routine:${routineId}`;
}

function listPrefix(filter: { worldId?: string; chatId?: string }): string {
  if (filter.worldId === undefined) return '';
  if (filter.chatId === undefined) return `${enc(filter.worldId)}/`;
  return `${enc(filter.worldId)}/${enc(filter.chatId)}/`;
}

function matchesRevoke(grant: Grant, filter: GrantRevokeFilter): boolean {
  if ('all' in filter) return filter.all;
  if ('chatId' in filter) {
    return (
      grant.chatId === filter.chatId &&
      (filter.skillId === undefined || grant.skillId === filter.skillId) &&
      (filter.requesterId === undefined || grant.requesterId === filter.requesterId)
    );
  }
  return grant.skillId === filter.skillId;
}

/** The fields a grant's MAC covers: everything but the MAC. */
function sealedFields(grant: Grant): Record<string, unknown> {
  const { mac: _mac, ...fields } = grant;
  return fields;
}

export function createGrants(store: Store, options: GrantsOptions = {}): Grants {
  const ttlMs = options.ttlMs ?? DEFAULT_GRANT_TTL_MS;
  const now = options.now ?? Date.now;
  const sealer = options.sealer ?? createRecordSealer(randomBytes(32));

  const authentic = (id: string, row: unknown): row is Grant =>
    typeof row === 'object' && row !== null && sealer.verify('grant', id, sealedFields(row as Grant), (row as Grant).mac);

  async function get(key: GrantKey): Promise<Grant | undefined> {
    const row = await store.get<unknown>('grants', key.id);
    if (row === undefined) return undefined;
    const grant = authentic(key.id, row) ? row : undefined;
    const matches =
      grant !== undefined &&
      grant.worldId === key.worldId &&
      grant.chatId === key.chatId &&
      grant.skillId === key.skillId &&
      grant.skillHash === key.skillHash &&
      grant.requesterId === key.requesterId;
    if (!matches) {
      await options.onRejected?.(key, row);
      return undefined;
    }
    // The store's TTL already drops it; the check guards stores that purge lazily.
    return grant.expiresAt <= now() ? undefined : grant;
  }

  async function list(filter: { worldId?: string; chatId?: string } = {}): Promise<Grant[]> {
    const rows = await store.list<unknown>('grants', listPrefix(filter));
    const at = now();
    return rows
      .filter((row): row is { key: string; value: Grant } => authentic(row.key, row.value))
      .map((row) => row.value)
      .filter((grant) => grant.expiresAt > at && (filter.chatId === undefined || grant.chatId === filter.chatId));
  }

  return {
    ttlMs,
    get,
    list,
    async has(key) {
      return (await get(key)) !== undefined;
    },
    async add(key, by) {
      const grantedAt = now();
      const fields = {
        worldId: key.worldId,
        chatId: key.chatId,
        skillId: key.skillId,
        skillHash: key.skillHash,
        requesterId: key.requesterId,
        grantedBy: by,
        grantedAt,
        expiresAt: grantedAt + ttlMs,
      };
      const grant: Grant = { ...fields, mac: sealer.seal('grant', key.id, fields) };
      await store.set('grants', key.id, grant, ttlMs);
    },
    async revoke(filter) {
      // Forged rows go too: revoking is always safe.
      const rows = await store.list<Grant>('grants', '');
      const doomed = rows.filter((row) => typeof row.value === 'object' && row.value !== null && matchesRevoke(row.value, filter));
      for (const row of doomed) await store.delete('grants', row.key);
      return doomed.length;
    },
  };
}
