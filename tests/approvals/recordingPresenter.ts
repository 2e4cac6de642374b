// A test double of an ADAPTER (what Slack, Discord or the terminal implement): it records what it was asked.
import type { ApprovalPresenter, ApprovalRecord } from '../../src/approvals/types.ts';

export class RecordingPresenter implements ApprovalPresenter {
  readonly presented: ApprovalRecord[] = [];
  readonly resolvedRecords: ApprovalRecord[] = [];
  readonly told: Array<{ approvalId: string; userId: string; text: string }> = [];
  #count = 0;

  constructor(private readonly behaviour: { failPresent?: boolean; failResolved?: boolean; name?: string } = {}) {}

  async present(record: ApprovalRecord): Promise<string | undefined> {
    this.presented.push(record);
    if (this.behaviour.failPresent === true) throw new Error('the platform refused the message');
    this.#count += 1;
    return `${this.behaviour.name ?? 'msg'}-${this.#count}`;
  }

  async resolved(record: ApprovalRecord): Promise<void> {
    this.resolvedRecords.push(record);
    if (this.behaviour.failResolved === true) throw new Error('the platform did not take the update');
  }

  async tellPrivately(record: ApprovalRecord, userId: string, text: string): Promise<void> {
    this.told.push({ approvalId: record.id, userId, text });
  }
}

/** Whether a promise has settled by the time already-queued work has run. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const first = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(marker), 20))]);
  return first !== marker;
}
