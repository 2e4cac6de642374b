// The operator's record of an approval decision, in the log (the audit trail in the store keeps it too).
import type { ApprovalRecord } from '../approvals/index.ts';
import type { Logger } from './log.ts';

/** The one log line of an approval decision: who answered what, for which skill and content, after how long. */
export function logDecision(logger: Logger, record: ApprovalRecord): void {
  logger.info(
    {
      approvalId: record.id,
      worldId: record.worldId,
      chatId: record.chatId,
      turnId: record.turnId,
      skill: record.skillId,
      skillHash: record.skillHash,
      items: record.items.filter((item) => item.kind !== 'file').map((item) => [item.path, ...item.args].join(' ')),
      requestedBy: record.requesterId,
      decidedBy: record.decidedBy,
      decision: record.outcome,
      waitedMs: record.decidedAt === undefined ? undefined : record.decidedAt - (record.presentedAt ?? record.createdAt),
    },
    'approval decided',
  );
}

/** One log line per change or run of a routine, follow-up or webhook: what, which, who, with what outcome. */
export function logRoutineDecision(
  logger: Logger,
  fields: { decision: string; id: string; kind: string; worldId: string; by?: string; chatId?: string; tick?: number; detail?: string },
): void {
  logger.info({ ...fields, ...(fields.tick === undefined ? {} : { tick: new Date(fields.tick).toISOString() }) }, 'routine decision');
}

/** The one log line of a refusal by a world's `access` rules (`decision: refused_access`): who, where, why, for what. */
export function logRefusedAccess(logger: Logger, entry: { worldId: string; userId: string; reason: string; what: string }): void {
  logger.info({ decision: 'refused_access', worldId: entry.worldId, userId: entry.userId, reason: entry.reason, what: entry.what }, 'refused access');
}
