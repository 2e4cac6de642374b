// Session grants: the remembered `yes_in_session` answer for one (world, chat, skill, content hash).
import type { Store } from '../store/types.ts';

export interface GrantKey {
  readonly worldId: string;
  readonly chatId: string;
  readonly skillId: string;
  /** The skill's content hash: editing any file of the skill gives a new key, so the next run asks again. */
  readonly skillHash: string;
  /** The store key. */
  readonly id: string;
}

export interface Grant {
  worldId: string;
  chatId: string;
  skillId: string;
  skillHash: string;
  grantedBy: string;
  grantedAt: number;
  expiresAt: number;
}

/** One chat (optionally one skill in it), one skill everywhere, or everything. */
export type GrantRevokeFilter = { chatId: string; skillId?: string } | { skillId: string } | { all: true };

export interface Grants {
  has(key: GrantKey): Promise<boolean>;
  get(key: GrantKey): Promise<Grant | undefined>;
  add(key: GrantKey, by: string): Promise<void>;
  list(filter?: { worldId?: string; chatId?: string }): Promise<Grant[]>;
  /** Returns how many grants were removed. */
  revoke(filter: GrantRevokeFilter): Promise<number>;
}

export const DEFAULT_GRANT_TTL_MS = 24 * 60 * 60 * 1000;

const enc = encodeURIComponent;

export function grantKey(worldId: string, chatId: string, skillId: string, skillHash: string): GrantKey {
  return { worldId, chatId, skillId, skillHash, id: `${enc(worldId)}/${enc(chatId)}/${enc(skillId)}/${enc(skillHash)}` };
}

function listPrefix(filter: { worldId?: string; chatId?: string }): string {
  if (filter.worldId === undefined) return '';
  if (filter.chatId === undefined) return `${enc(filter.worldId)}/`;
  return `${enc(filter.worldId)}/${enc(filter.chatId)}/`;
}

function matchesRevoke(grant: Grant, filter: GrantRevokeFilter): boolean {
  if ('all' in filter) return filter.all;
  if ('chatId' in filter) return grant.chatId === filter.chatId && (filter.skillId === undefined || grant.skillId === filter.skillId);
  return grant.skillId === filter.skillId;
}

export function createGrants(store: Store, options: { ttlMs?: number; now?: () => number } = {}): Grants {
  const ttlMs = options.ttlMs ?? DEFAULT_GRANT_TTL_MS;
  const now = options.now ?? Date.now;

  async function get(key: GrantKey): Promise<Grant | undefined> {
    const grant = await store.get<Grant>('grants', key.id);
    // The store's TTL already drops it; the check guards stores that purge lazily.
    if (grant === undefined || grant.expiresAt <= now() || grant.skillHash !== key.skillHash) return undefined;
    return grant;
  }

  async function list(filter: { worldId?: string; chatId?: string } = {}): Promise<Grant[]> {
    const rows = await store.list<Grant>('grants', listPrefix(filter));
    const at = now();
    return rows
      .map((row) => row.value)
      .filter((grant) => grant.expiresAt > at && (filter.chatId === undefined || grant.chatId === filter.chatId));
  }

  return {
    get,
    list,
    async has(key) {
      return (await get(key)) !== undefined;
    },
    async add(key, by) {
      const grantedAt = now();
      const grant: Grant = {
        worldId: key.worldId,
        chatId: key.chatId,
        skillId: key.skillId,
        skillHash: key.skillHash,
        grantedBy: by,
        grantedAt,
        expiresAt: grantedAt + ttlMs,
      };
      await store.set('grants', key.id, grant, ttlMs);
    },
    async revoke(filter) {
      const rows = await store.list<Grant>('grants', '');
      const doomed = rows.filter((row) => matchesRevoke(row.value, filter));
      for (const row of doomed) await store.delete('grants', row.key);
      return doomed.length;
    },
  };
}
