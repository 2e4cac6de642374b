// The requests this runtime awaits: one promise per approval id, with its deadline timer and its re-read poll.
import type { ApprovalRecord } from './types.ts';

export interface Waiter {
  /** The local copy, holding platformRef as soon as the presenter returns it. */
  record: ApprovalRecord;
  readonly answered: Promise<ApprovalRecord>;
}

interface Entry extends Waiter {
  settle: (record: ApprovalRecord) => void;
  deadline?: NodeJS.Timeout;
  poll: NodeJS.Timeout;
}

/**
 * Every waiter re-reads its record every `pollIntervalMs` (through `recheck`): a bus message can be lost
 * (Redis pub/sub is at most once) or never sent across processes (sqlite), and the store is the record.
 * Timers are unref'd: a waiting question never keeps the process alive by itself.
 */
export class ApprovalWaiters {
  readonly #entries = new Map<string, Entry>();
  readonly #pollIntervalMs: number;
  readonly #recheck: (approvalId: string) => void;

  constructor(options: { pollIntervalMs: number; recheck: (approvalId: string) => void }) {
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#recheck = options.recheck;
  }

  /** Registered before the record is written or adopted, so a sweep never mistakes it for an orphan. */
  add(record: ApprovalRecord): Waiter {
    let settle: (record: ApprovalRecord) => void = () => undefined;
    const answered = new Promise<ApprovalRecord>((resolve) => (settle = resolve));
    const poll = setInterval(() => this.#recheck(record.id), this.#pollIntervalMs);
    poll.unref();
    const entry: Entry = { record, answered, settle, poll };
    this.#entries.set(record.id, entry);
    return entry;
  }

  get(approvalId: string): Waiter | undefined {
    return this.#entries.get(approvalId);
  }

  has(approvalId: string): boolean {
    return this.#entries.has(approvalId);
  }

  all(): Waiter[] {
    return [...this.#entries.values()];
  }

  /** Calls `onDeadline` after `ms` unless the waiter is settled first. */
  armDeadline(approvalId: string, ms: number, onDeadline: () => void): void {
    const entry = this.#entries.get(approvalId);
    if (entry === undefined) return;
    clearTimeout(entry.deadline);
    entry.deadline = setTimeout(onDeadline, Math.max(0, ms));
    entry.deadline.unref();
  }

  /** Hands `record` to the request awaiting it, if any, and forgets that request. */
  settle(record: ApprovalRecord): void {
    const entry = this.#entries.get(record.id);
    if (entry === undefined) return;
    this.drop(record.id);
    entry.settle(record);
  }

  /** Forgets a request without answering it (its question was never asked, or another one is awaited instead). */
  drop(approvalId: string): void {
    const entry = this.#entries.get(approvalId);
    if (entry === undefined) return;
    clearTimeout(entry.deadline);
    clearInterval(entry.poll);
    this.#entries.delete(approvalId);
  }
}
