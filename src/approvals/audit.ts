// The audit trail: one record per approval decision and per run of skill code, for operators.
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/types.ts';
import type { ApprovalItem, ApprovalRecord } from './types.ts';

export interface AuditEntry {
  /** Epoch milliseconds. */
  at: number;
  /**
   * `integrity`: a grant or approval record in the store failed its MAC check and was ignored. `install`: a step
   * of installing, updating or removing skills (outcome `requested`, `refused`, `declined`, `installed`, `updated`, `removed`).
   * `question`: an MCP server's question to a person (outcome `accept`, `decline`, `cancel`, `timeout`; the values
   * given, a secret field's never, in its item's args).
   */
  kind: 'approval' | 'run' | 'integrity' | 'install' | 'question';
  worldId: string;
  chatId: string;
  skillId: string;
  skillHash: string;
  items: ApprovalItem[];
  requestedBy?: string;
  decidedBy?: string;
  /** approval: an ApprovalOutcome or `granted`; run: the exec status (`ok`, `failed`, `timeout`, `refused`). */
  outcome: string;
  approvalId?: string;
  exitCode?: number | null;
  durationMs?: number;
  turnId?: string;
  /** Why a run was refused or failed, or what an integrity entry found. */
  reason?: string;
  /** What a hook printed (its first HOOK_OUTPUT_KEPT characters): hooks observe, and this is their journal. */
  output?: string;
}

/** Characters of a hook's stdout the audit keeps. */
export const HOOK_OUTPUT_KEPT = 2000;

/** Who ran skill code, for whom, under which approval (a hook scope has exactly these fields). */
export interface RunContext {
  worldId: string;
  chatId: string;
  turnId: string;
  requesterId: string;
  skill: { id: string; hash: string };
  /** The content hash the approval or grant covered (what the run was checked against). */
  approvedHash?: string;
  approvalId?: string;
  decidedBy?: string;
}

/** The audit entry of one run of skill code (a script, a preflight command, a hook). */
export function runAuditEntry(
  context: RunContext,
  item: ApprovalItem,
  result: { status: string; exitCode: number | null; durationMs: number; reason?: string; stdout?: string },
): AuditEntry {
  // Only a hook's output is kept: a script's output goes to the model, and may hold what the audit should not.
  const output = item.kind === 'hook' ? (result.stdout ?? '').trimEnd().slice(0, HOOK_OUTPUT_KEPT) : '';
  return {
    at: Date.now(),
    kind: 'run',
    worldId: context.worldId,
    chatId: context.chatId,
    skillId: context.skill.id,
    skillHash: context.approvedHash ?? context.skill.hash,
    items: [item],
    requestedBy: context.requesterId,
    outcome: result.status,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    turnId: context.turnId,
    ...(context.approvalId === undefined ? {} : { approvalId: context.approvalId }),
    ...(context.decidedBy === undefined ? {} : { decidedBy: context.decidedBy }),
    ...(result.status === 'ok' || result.reason === undefined ? {} : { reason: result.reason }),
    ...(output === '' ? {} : { output }),
  };
}

export interface AuditFilter {
  worldId?: string;
  chatId?: string;
}

export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Entries in time order (oldest first). */
  list(filter?: AuditFilter): Promise<AuditEntry[]>;
}

export const DEFAULT_AUDIT_TTL_MS = 90 * 24 * 60 * 60 * 1000;

// Key components are URI-encoded so an id holding `/` cannot make one world's prefix match another's.
function worldPrefix(worldId: string): string {
  return `${encodeURIComponent(worldId)}/`;
}

function chatPrefix(worldId: string, chatId: string): string {
  return `${worldPrefix(worldId)}${encodeURIComponent(chatId)}/`;
}

/** Epoch ms zero-padded so that key order is time order within a chat. */
function timeKey(at: number): string {
  return String(Math.max(0, Math.floor(at))).padStart(15, '0');
}

export function createAuditLog(store: Store, options: { ttlMs?: number } = {}): AuditLog {
  const ttlMs = options.ttlMs ?? DEFAULT_AUDIT_TTL_MS;
  // Orders records written in the same millisecond by this log; the random part keeps instances apart.
  let sequence = 0;
  return {
    async record(entry) {
      sequence = (sequence + 1) % 1_000_000;
      const order = `${timeKey(entry.at)}-${String(sequence).padStart(6, '0')}-${randomBytes(4).toString('hex')}`;
      const key = `${chatPrefix(entry.worldId, entry.chatId)}${order}`;
      await store.set('audit', key, entry, ttlMs);
    },
    async list(filter = {}) {
      const { worldId, chatId } = filter;
      const prefix = worldId === undefined ? '' : chatId === undefined ? worldPrefix(worldId) : chatPrefix(worldId, chatId);
      const rows = await store.list<AuditEntry>('audit', prefix);
      const entries = rows
        .map((row) => ({ entry: row.value, order: row.key.slice(row.key.lastIndexOf('/') + 1) }))
        .filter(({ entry }) => chatId === undefined || entry.chatId === chatId);
      // Keys sort by world and chat first; across them, time order is what an operator reads.
      entries.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
      return entries.map(({ entry }) => entry);
    },
  };
}

/** The audit entry of a resolved approval. */
export function approvalAuditEntry(record: ApprovalRecord): AuditEntry {
  return {
    at: record.decidedAt ?? record.createdAt,
    kind: 'approval',
    worldId: record.worldId,
    chatId: record.chatId,
    skillId: record.skillId,
    skillHash: record.skillHash,
    items: record.items,
    requestedBy: record.requesterId,
    ...(record.decidedBy === undefined ? {} : { decidedBy: record.decidedBy }),
    outcome: record.outcome ?? 'expired',
    approvalId: record.id,
    ...(record.turnId === undefined ? {} : { turnId: record.turnId }),
  };
}
