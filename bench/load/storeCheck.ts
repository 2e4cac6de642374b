// The load process's own look into the shared store: who asked a question, and what is left once the run is quiet
// (nothing should still wait in an inbox or for an answer).
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

export interface StoreLeftovers {
  /** Messages queued but never answered (the inbox deletes an item once its turn replied). */
  inboxItems: number;
  /** Approval records still pending, and of those how many were never shown (no message to click). */
  pendingApprovals: number;
  pendingNeverShown: number;
  /** Script runs in the audit trail, and messages (turn ids) whose script ran more than once (a re-run). */
  scriptRuns: number;
  turnsRunTwice: number;
}

export class StoreView {
  private constructor(private readonly store: Store) {}

  static async open(url: string): Promise<StoreView> {
    return new StoreView(await createStore(url, { logger: silentLogger() }));
  }

  /** The instance id stamped on an approval record (host-pid-random), if the record exists. */
  async askedBy(approvalId: string): Promise<string | undefined> {
    const record = await this.store.get<{ instanceId?: unknown }>('approvals', approvalId);
    return typeof record?.instanceId === 'string' ? record.instanceId : undefined;
  }

  /** An approval record as it stands (for tracing a question the run saw unresolved). */
  async approval(approvalId: string): Promise<unknown> {
    return this.store.get<unknown>('approvals', approvalId);
  }

  /** Chats with messages waiting whose lease an instance of process `pid` holds. */
  async chatsLeasedBy(pid: number): Promise<string[]> {
    const held: string[] = [];
    for (const { chatId } of await this.store.inboxChats()) {
      const lease = await this.store.get<{ instanceId?: unknown }>('leases', `chat:${chatId}`);
      if (typeof lease?.instanceId === 'string' && isOfPid(lease.instanceId, pid)) held.push(chatId);
    }
    return held;
  }

  async leftovers(): Promise<StoreLeftovers> {
    const inboxItems = await this.store.inboxSize();
    const approvals = await this.store.list<{ status?: unknown; presentedAt?: unknown }>('approvals', '');
    const pending = approvals.filter((row) => row.value.status === 'pending');
    const audit = await this.store.list<{ kind?: unknown; turnId?: unknown }>('audit', '');
    const runsPerTurn = new Map<string, number>();
    for (const { value } of audit) {
      if (value.kind === 'run' && typeof value.turnId === 'string') runsPerTurn.set(value.turnId, (runsPerTurn.get(value.turnId) ?? 0) + 1);
    }
    return {
      inboxItems,
      pendingApprovals: pending.length,
      pendingNeverShown: pending.filter((row) => row.value.presentedAt === undefined).length,
      scriptRuns: [...runsPerTurn.values()].reduce((sum, runs) => sum + runs, 0),
      turnsRunTwice: [...runsPerTurn.values()].filter((runs) => runs > 1).length,
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** Whether an instance id (host-pid-random) names the process `pid`. */
export function isOfPid(instanceId: string | undefined, pid: number): boolean {
  return instanceId !== undefined && instanceId.split('-').at(-2) === String(pid);
}
