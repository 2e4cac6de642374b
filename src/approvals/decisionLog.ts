// The operator's record of an approval decision, in the log (the audit trail in the store keeps it too).
import type { ApprovalRecord } from './types.ts';
import type { Logger } from '../ops/log.ts';

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
