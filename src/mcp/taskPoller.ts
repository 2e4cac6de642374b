// Polls the running MCP tasks, each by exactly one instance at a time: a lease per task in the store (taken when
// absent or lapsed, renewed by its holder with each poll), so a task whose instance died is taken over once the
// lease lapses. Polling backs off (1 s, ×1.5, at most 30 s, never faster than the server asks). An ended task's
// result goes back to its thread through `end` (the chats' accept path), whose dedupe key makes it once.
import type { Client } from '@modelcontextprotocol/client';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { cleanOutcome } from './results.ts';
import { oneLine } from './serverConnection.ts';
import { isRunning, type TaskBook, type TaskRecord } from './taskBook.ts';
import { answerInputs, type TaskInputDeps } from './taskInputs.ts';
import { cancelTask, type DetailedTask, getTask } from './taskWire.ts';

export interface TaskPollerDeps {
  store: Store;
  book: TaskBook;
  instanceId: string;
  /** The requester's connection to the task's server, or why there is none now (tried again later). */
  connect(record: TaskRecord): Promise<Client | string>;
  /** The task ended: its result (or why it has none) goes to the model in its thread. Called once per task. */
  end(record: TaskRecord, text: string): Promise<void>;
  logger: Logger;
  /** One tasks/get or tasks/cancel's bound (MCP_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long a lease holds without renewal: a dead holder's tasks wait this long (default 60 s). */
  leaseMs?: number;
  /** How often the index of running tasks is read (default 5 s). */
  scanMs?: number;
  firstPollMs?: number;
  maxPollMs?: number;
  /** Puts an `input_required` task's requests to its requester (absent: they are left unanswered). */
  inputs?: Pick<TaskInputDeps, 'ask' | 'answer'>;
}

/** While a person is being asked for a task's input, it is polled at least this often (their answer goes on soon). */
const ASKING_POLL_MS = 3_000;

interface Held {
  record: TaskRecord;
  nextPollAt: number;
  intervalMs: number;
}

const leaseKey = (id: string) => `mcp-task:${id}`;

export class TaskPoller {
  private readonly held = new Map<string, Held>();
  /** Tasks another instance holds: when to try their lease again. */
  private readonly elsewhereUntil = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private nextScanAt = 0;
  private busy = false;
  private readonly leaseMs: number;
  private readonly firstPollMs: number;
  private readonly maxPollMs: number;

  constructor(private readonly deps: TaskPollerDeps) {
    this.leaseMs = deps.leaseMs ?? 60_000;
    this.firstPollMs = deps.firstPollMs ?? 1_000;
    this.maxPollMs = deps.maxPollMs ?? 30_000;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), Math.min(this.firstPollMs, 1_000));
    this.timer.unref();
  }

  /** Stops polling; leases are left to lapse (a restart's new process takes them over like any other). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A task this instance just started: held at once, first polled after the first interval. */
  async adopt(record: TaskRecord): Promise<void> {
    if (await this.deps.store.claim('leases', leaseKey(record.id), { status: this.deps.instanceId }, this.leaseMs)) {
      this.held.set(record.id, { record, nextPollAt: Date.now() + this.firstPollMs, intervalMs: this.firstPollMs });
    }
  }

  /** One pass: new tasks from the index (now and then), then each held task that is due. Never two at once. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const now = Date.now();
      if (now >= this.nextScanAt) {
        this.nextScanAt = now + (this.deps.scanMs ?? 5_000);
        await this.scan(now);
      }
      for (const entry of [...this.held.values()]) if (Date.now() >= entry.nextPollAt) await this.poll(entry);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'polling MCP tasks failed; tried again');
    } finally {
      this.busy = false;
    }
  }

  private async scan(now: number): Promise<void> {
    for (const id of await this.deps.book.runningIds()) {
      if (this.held.has(id) || (this.elsewhereUntil.get(id) ?? 0) > now) continue;
      const record = await this.deps.book.get(id);
      if (record === undefined || !isRunning(record.status)) continue;
      if (await this.deps.store.claim('leases', leaseKey(id), { status: this.deps.instanceId }, this.leaseMs)) {
        this.elsewhereUntil.delete(id);
        this.held.set(id, { record, nextPollAt: now, intervalMs: this.firstPollMs });
        this.deps.logger.info({ task: id, server: record.server }, 'MCP task taken up for polling');
      } else {
        // Tried again a quarter lease later, not a whole one: a holder that died just after renewing is taken over
        // within 1.25 lease periods, for four failed claims a minute per other instance.
        this.elsewhereUntil.set(id, now + this.leaseMs / 4);
      }
    }
  }

  private async poll(entry: Held): Promise<void> {
    const { record } = entry;
    // The lease renewed first: a holder that lost it (it paused past the lease) lets the new holder poll.
    if (!(await this.deps.store.compareAndSet('leases', leaseKey(record.id), this.deps.instanceId, { status: this.deps.instanceId }, this.leaseMs))) {
      this.held.delete(record.id);
      return;
    }
    const client = await this.deps.connect(record);
    if (typeof client === 'string') return this.later(entry, undefined, client);
    if (Date.now() >= record.deadline) return this.timeOut(entry, client);
    let task: DetailedTask;
    try {
      task = await getTask(client, record.taskId, this.deps.timeoutMs);
    } catch (error) {
      return this.later(entry, undefined, oneLine((error as Error).message));
    }
    if (task.status === 'working' || task.status === 'input_required') return this.running(entry, client, task);
    await this.finish(entry, task.status, endText(record, task));
  }

  /** A task still running: its state kept, and an `input_required` one's requests asked and answered. */
  private async running(entry: Held, client: Client, task: DetailedTask): Promise<void> {
    const { record } = entry;
    let step: Awaited<ReturnType<typeof answerInputs>> | undefined;
    if (task.status === 'input_required' && this.deps.inputs !== undefined) {
      try {
        step = await answerInputs({ ...this.deps.inputs, logger: this.deps.logger, timeoutMs: this.deps.timeoutMs }, record, client, task);
      } catch (error) {
        return this.later(entry, task.pollIntervalMs, `its input could not be passed on: ${oneLine((error as Error).message)}`);
      }
    }
    if (task.status !== record.status || task.statusMessage !== record.statusMessage || step?.changed === true) {
      const moved = await this.deps.book.move(record, {
        status: task.status,
        ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
        ...(step === undefined ? {} : { inputs: step.inputs, sent: step.sent }),
      });
      if (moved === undefined) return void this.held.delete(record.id);
      entry.record = moved;
    }
    // Answers sent: the task moves on soon, so polling starts over; a person being asked: polled often enough.
    if (step?.delivered === true) entry.intervalMs = this.firstPollMs;
    this.later(entry, task.pollIntervalMs);
    if (step?.waiting === true) entry.nextPollAt = Math.min(entry.nextPollAt, Date.now() + Math.max(ASKING_POLL_MS, task.pollIntervalMs ?? 0));
  }

  private later(entry: Held, serverMs: number | undefined, why?: string): void {
    if (why !== undefined) this.deps.logger.warn({ task: entry.record.id, why }, 'MCP task not polled this time');
    entry.intervalMs = Math.min(this.maxPollMs, Math.max(serverMs ?? 0, Math.round(entry.intervalMs * 1.5)));
    entry.nextPollAt = Date.now() + entry.intervalMs;
  }

  private async timeOut(entry: Held, client: Client): Promise<void> {
    await cancelTask(client, entry.record.taskId, this.deps.timeoutMs).catch(() => undefined);
    const minutes = Math.round((entry.record.deadline - entry.record.startedAt) / 60_000);
    await this.finish(entry, 'timed_out', `${label(entry.record)} ran past ${minutes} minutes (MCP_TASK_MAX_MS), so it was cancelled; it has no result.`);
  }

  private async finish(entry: Held, state: 'completed' | 'failed' | 'cancelled' | 'timed_out', text: string): Promise<void> {
    this.held.delete(entry.record.id);
    // The answer first (its accept is keyed by the task, so a second instance's is a no-op), then the record: an
    // instance that dies between the two leaves a task the next holder ends again, answered still once.
    await this.deps.end({ ...entry.record, status: state }, text);
    await this.deps.book.move(entry.record, { status: state });
    await this.deps.store.release('leases', leaseKey(entry.record.id), this.deps.instanceId);
    this.deps.logger.info({ task: entry.record.id, server: entry.record.server, state }, 'MCP task ended');
  }
}

const label = (record: TaskRecord) => `The task of mcp__${record.server}__${record.tool} (${record.id})`;

/** What the model reads when a task ended: the tool's result text, or why there is none. */
function endText(record: TaskRecord, task: DetailedTask): string {
  if (task.status === 'cancelled') return `${label(record)} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}.`;
  if (task.status === 'failed') return `${label(record)} failed: ${oneLine(task.error?.message ?? task.statusMessage ?? 'the server gave no reason')}.`;
  // The same cleaning and bounds as a plain call's result (hidden characters out, 64 KiB of text).
  const { outcome } = cleanOutcome({ content: [], ...task.result });
  return `${label(record)} ${outcome.isError === true ? 'ended with an error' : 'completed'}. Its result:\n${outcome.content}`;
}
