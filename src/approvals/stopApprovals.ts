// A stopped turn's open question closes as `no`, answered by the person who stopped it.
import type { Store } from '../store/types.ts';
import type { ApprovalRuntime } from './approvals.ts';
import type { ApprovalRecord } from './types.ts';

/** Answers `no` to every pending question of `turn`; returns how many it closed. */
export async function declineOpenApprovals(
  store: Store,
  approvals: ApprovalRuntime,
  turn: { turnId: string; chatId: string; worldId: string },
  by: string,
): Promise<number> {
  const rows = await store.list<ApprovalRecord>('approvals', '');
  const open = rows
    .map((row) => row.value)
    .filter((record) => record.status === 'pending' && record.turnId === turn.turnId && record.chatId === turn.chatId);
  let closed = 0;
  for (const record of open) {
    const result = await approvals.respond({ worldId: turn.worldId, approvalId: record.id, option: 'no', userId: by });
    if (result.kind === 'accepted') closed += 1;
  }
  return closed;
}
