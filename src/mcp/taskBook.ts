// The durable record of each MCP call a server turned into a task, and the one index of running ones: in the store,
// so any instance can poll a task after a restart or a failover. A record's `status` is the task's state, so each
// change is a compare-and-set from the state it was read in (two instances can never both end one task).
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/types.ts';
import type { TaskState } from './taskWire.ts';

/** The server's states, and ours: `timed_out` (past MCP_TASK_MAX_MS, cancelled by us). */
export type TaskRecordState = TaskState | 'timed_out';

export interface TaskRecord {
  status: TaskRecordState;
  /** Ours (the record's key), not the server's. */
  id: string;
  server: string;
  tool: string;
  /** The server's task id. */
  taskId: string;
  worldId: string;
  chatId: string;
  requesterId: string;
  startedAt: number;
  /** startedAt + MCP_TASK_MAX_MS. */
  deadline: number;
  statusMessage?: string;
  /** An `input_required` task's requests put to the requester: the server's key → our question's id. */
  inputs?: Record<string, string>;
  /** The keys whose answers the server was sent (tasks/update), never sent twice by this bot. */
  sent?: string[];
}

interface TaskIndex {
  /** A fresh value at each change: the compare-and-set's expected value. */
  status: string;
  ids: string[];
}

const RUNNING: readonly TaskRecordState[] = ['working', 'input_required'];
export const isRunning = (state: TaskRecordState): boolean => RUNNING.includes(state);

const INDEX_KEY = 'tasks:index';
const recordKey = (id: string) => `task:${id}`;
/** An ended task's record is kept this long for `skillbot mcp tasks`. */
const ENDED_TTL_MS = 24 * 3_600_000;

export class TaskBook {
  constructor(private readonly store: Store) {}

  get(id: string): Promise<TaskRecord | undefined> {
    return this.store.get<TaskRecord>('mcp', recordKey(id));
  }

  /** The running tasks' ids (one store read). */
  async runningIds(): Promise<string[]> {
    return (await this.store.get<TaskIndex>('mcp', INDEX_KEY))?.ids ?? [];
  }

  /** Every task in the index, oldest first (the CLI, App Home). */
  async list(): Promise<TaskRecord[]> {
    const records = await Promise.all((await this.runningIds()).map((id) => this.get(id)));
    return records.filter((record): record is TaskRecord => record !== undefined).sort((a, b) => a.startedAt - b.startedAt);
  }

  /**
   * Adds a task unless its world already runs `perWorld` tasks: 'full' changes nothing. The index is changed by
   * compare-and-set, retried while other instances change it at the same moment.
   */
  async add(task: Omit<TaskRecord, 'id' | 'status'> & { status: TaskState }, perWorld: number): Promise<TaskRecord | 'full'> {
    const record: TaskRecord = { ...task, id: randomUUID() };
    for (;;) {
      const index = await this.store.get<TaskIndex>('mcp', INDEX_KEY);
      const running = await Promise.all((index?.ids ?? []).map((id) => this.get(id)));
      if (running.filter((other) => other?.worldId === task.worldId && isRunning(other.status)).length >= perWorld) return 'full';
      await this.store.set('mcp', recordKey(record.id), record);
      const next: TaskIndex = { status: randomUUID(), ids: [...(index?.ids ?? []), record.id] };
      if (index === undefined ? await this.store.claim('mcp', INDEX_KEY, next, 100 * 365 * 86_400_000) : await this.store.compareAndSet('mcp', INDEX_KEY, index.status, next)) return record;
    }
  }

  /** Moves a task from the state it was read in; false when another instance moved it first. */
  async move(record: TaskRecord, next: Partial<TaskRecord> & { status: TaskRecordState }): Promise<TaskRecord | undefined> {
    const moved = { ...record, ...next };
    const ended = !isRunning(moved.status);
    if (!(await this.store.compareAndSet('mcp', recordKey(record.id), record.status, moved, ended ? ENDED_TTL_MS : undefined))) return undefined;
    if (ended) await this.drop(record.id);
    return moved;
  }

  private async drop(id: string): Promise<void> {
    for (;;) {
      const index = await this.store.get<TaskIndex>('mcp', INDEX_KEY);
      if (index === undefined || !index.ids.includes(id)) return;
      if (await this.store.compareAndSet('mcp', INDEX_KEY, index.status, { status: randomUUID(), ids: index.ids.filter((other) => other !== id) })) return;
    }
  }
}
