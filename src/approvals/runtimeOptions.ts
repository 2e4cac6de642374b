// What the approval runtime is built with, and what it emits.
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import type { ApprovalBus } from './approvalBus.ts';
import type { AuditLog } from './audit.ts';
import type { RecordSealer } from './recordSeal.ts';
import type { ApprovalRecord } from './types.ts';

export interface ApprovalRuntimeOptions {
  store: Store;
  /** The world's configured approvers (platform user ids), besides the requester. */
  approversFor: (worldId: string) => string[];
  logger?: Logger;
  audit: AuditLog;
  now?: () => number;
  /** Tells other instances that an approval changed; defaults to one inside this process (createStoreApprovalBus for several). */
  bus?: ApprovalBus;
  /** How long a record is kept after its deadline or resolution, so a late click still finds it. */
  keepMs?: number;
  /** This instance among those sharing the store; default: host, pid and a random part (new on every start). */
  instanceId?: string;
  /**
   * This instance counts as gone this long after its last heartbeat (default 3 s): its chats are then taken
   * over at once, and its questions are left pending while their message waits for the re-run that resumes them.
   */
  instanceTtlMs?: number;
  /** ...which it writes this often (default 1 s). */
  heartbeatMs?: number;
  /** How often the sweeper started by start() looks for questions of instances that are gone (default 15 s). */
  sweepIntervalMs?: number;
  /** How often a waiting request re-reads its record, in case a bus message was lost (default 2 s). */
  pollIntervalMs?: number;
  /**
   * Seals every decision this runtime writes (see recordSeal.ts); isAuthentic() checks one. Instances sharing
   * a store need the same key. Default: a key of this runtime's own.
   */
  sealer?: RecordSealer;
}

export interface ApprovalEvents {
  'hitl-option-request': [ApprovalRecord];
  'hitl-option-resolved': [ApprovalRecord];
}

/** What an option left out means. */
export const RUNTIME_DEFAULTS = {
  keepMs: 24 * 60 * 60 * 1000,
  instanceTtlMs: 3_000,
  heartbeatMs: 1_000,
  sweepIntervalMs: 15_000,
  pollIntervalMs: 2_000,
};
