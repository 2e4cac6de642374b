// Which pending questions nobody awaits any more: their instance is gone, or their deadline passed.
import type { Store } from '../store/types.ts';
import { isPendingApproval, SYSTEM_DECIDERS } from './approvalRecord.ts';
import { isInstanceAlive } from '../chats/instanceLiveness.ts';
import type { ApprovalOutcome } from './types.ts';

export interface StaleApproval {
  approvalId: string;
  outcome: Extract<ApprovalOutcome, 'expired' | 'timeout'>;
  decidedBy: string;
}

/**
 * Past its deadline by more than `deadlineGraceMs`: `timeout` (its own instance times it out on time; the grace
 * leaves that to it, and absorbs clocks a little apart between hosts). Asked by an instance whose liveness record is gone (crashed, or handed over and
 * lapsed): `expired`. Records from before instance ids, and this instance's own that it no longer awaits (an
 * earlier life under the same id), have nobody waiting either. Questions of live instances are left alone.
 */
export async function findStaleApprovals(
  store: Store,
  context: { instanceId: string; now: number; deadlineGraceMs: number; awaiting: (approvalId: string) => boolean },
): Promise<StaleApproval[]> {
  const rows = await store.list<unknown>('approvals', '');
  const alive = new Map<string, boolean>();
  const stale: StaleApproval[] = [];
  for (const { key, value } of rows) {
    if (!isPendingApproval(value) || context.awaiting(key)) continue;
    if (value.expiresAt + context.deadlineGraceMs <= context.now) {
      stale.push({ approvalId: key, outcome: 'timeout', decidedBy: SYSTEM_DECIDERS.timeout });
      continue;
    }
    const owner = value.instanceId;
    if (owner !== undefined && owner !== context.instanceId) {
      let ownerAlive = alive.get(owner);
      if (ownerAlive === undefined) {
        ownerAlive = await isInstanceAlive(store, owner);
        alive.set(owner, ownerAlive);
      }
      if (ownerAlive) continue;
      // Its chat still has the message waiting: the instance that takes the chat over re-runs the turn, which
      // resumes this question. Its deadline (above) still ends it if no one does.
      if (value.turnId !== undefined && (await store.inboxHead<{ id: string }>(value.chatId, 1)).some((entry) => entry.id === value.turnId)) continue;
    }
    stale.push({ approvalId: key, outcome: 'expired', decidedBy: SYSTEM_DECIDERS.restart });
  }
  return stale;
}
