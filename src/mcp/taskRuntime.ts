// MCP tasks in a running bot: a call answered with a task handle becomes a durable record (taskBook.ts) and the
// turn goes on without waiting; this instance's poller (taskPoller.ts) starts with the app and stops at shutdown;
// a task's end goes back to its thread as the requester's new turn (the chats' accept path, keyed by the task).
import type { Client } from '@modelcontextprotocol/client';
import { type Config, worldSettings } from '../config/config.ts';
import type { McpServerConfig } from '../config/mcpSettings.ts';
import type { Logger } from '../ops/log.ts';
import type { IncomingMessage, PlatformPort } from '../platform/port.ts';
import type { Store } from '../store/types.ts';
import type { ToolResult } from '../tools/contract.ts';
import type { McpConnections } from './connections.ts';
import type { McpQuestions, QuestionParams } from './questions/questions.ts';
import { oneLine } from './serverConnection.ts';
import { isRunning, TaskBook, type TaskRecord } from './taskBook.ts';
import { TaskPoller } from './taskPoller.ts';
import { cancelTask, type taskHandleOf } from './taskWire.ts';

type Handle = NonNullable<ReturnType<typeof taskHandleOf>>;

export interface TaskRuntimeDeps {
  config: Config;
  store: Store;
  connections: McpConnections;
  logger: Logger;
  /** Where an `input_required` task's requests are put to its requester (absent: left unanswered). */
  questions?: McpQuestions;
}

/** Who started the call, where. */
export interface TaskOwner {
  worldId: string;
  chatId: string;
  requesterId: string;
}

/** The line the thread reads when a call became a task (DESIGN: "<server>: <tool> is running as a task"). */
export const runningNote = (server: string, tool: string): string => `${server}: ${tool} is running as a task`;

export class McpTasks {
  readonly book: TaskBook;
  private poller: TaskPoller | undefined;
  private portOf: (platform: string) => PlatformPort | undefined = () => undefined;

  constructor(private readonly deps: TaskRuntimeDeps) {
    this.book = new TaskBook(deps.store);
  }

  /**
   * Starts polling here; `accept` queues a task's end as a turn (the dispatcher's accept), `port` posts a task's
   * note with its Cancel button (the dispatcher's ports).
   */
  start(instanceId: string, accept: (message: IncomingMessage, keys: string[]) => Promise<unknown>, port: (platform: string) => PlatformPort | undefined): void {
    const { config, logger } = this.deps;
    this.portOf = port;
    this.poller ??= new TaskPoller({
      store: this.deps.store,
      book: this.book,
      instanceId,
      connect: (record) => this.connect(record),
      end: async (record, text) => {
        const message: IncomingMessage = { worldId: record.worldId, chatId: record.chatId, userId: record.requesterId, text: endMessage(record, text) };
        const accepted = await accept(message, [`mcp-task-end:${record.id}`]);
        if (accepted === 'refused') throw new Error('the store did not take the task\'s end');
      },
      logger,
      timeoutMs: config.mcp.timeoutMs,
      ...(this.deps.questions === undefined ? {} : { inputs: taskQuestions(config, this.deps.questions) }),
    });
    this.poller.start();
  }

  stop(): void {
    this.poller?.stop();
  }

  /**
   * A call its server turned into a task: recorded and adopted by this instance's poller, or cancelled on the server
   * when the world already runs its bound of tasks. What the model reads now (its answer comes later).
   */
  async begin(owner: TaskOwner, server: string, tool: string, handle: Handle, client: Client, notice: (text: string) => void): Promise<ToolResult> {
    const { taskMaxMs, tasksPerWorld } = this.deps.config.mcp;
    const now = Date.now();
    const record = await this.book.add({ ...owner, server, tool, taskId: handle.taskId, status: handle.status, startedAt: now, deadline: now + taskMaxMs }, tasksPerWorld);
    if (record === 'full') {
      await cancelTask(client, handle.taskId, this.deps.config.mcp.timeoutMs).catch(() => undefined);
      return { content: `mcp__${server}__${tool} was not run: this chat's workspace already runs ${tasksPerWorld} MCP tasks (MCP_TASKS_PER_WORLD); try again once one has ended.`, isError: true };
    }
    await this.poller?.adopt(record);
    await this.note(record, notice);
    this.deps.logger.info({ task: record.id, server, tool, chatId: owner.chatId }, 'MCP call running as a task');
    return { content: `${runningNote(server, tool)} (${record.id}). Its result comes back to this thread as a new message when it ends; do not wait for it: tell the person it is running.` };
  }

  /** The thread's note with its Cancel button where the platform posts one; else a line under the turn's answer. */
  private async note(record: TaskRecord, notice: (text: string) => void): Promise<void> {
    const text = runningNote(record.server, record.tool);
    // A world id starts with its platform ("slack:…", "discord:…").
    const port = this.portOf(record.worldId.slice(0, record.worldId.indexOf(':')));
    if (port?.postTaskNote === undefined) return notice(text);
    try {
      await port.postTaskNote(record.chatId, record.id, text);
    } catch (error) {
      this.deps.logger.warn({ err: error, task: record.id }, 'posting an MCP task\'s note failed; said under the answer');
      notice(text);
    }
  }

  /** A Cancel click: only the requester or one of the world's approvers; the server is sent tasks/cancel. */
  async cancelBy(id: string, userId: string): Promise<string> {
    const record = await this.running(id);
    if (record === undefined) return 'That task is no longer running.';
    const label = `${record.server}: ${record.tool}`;
    if (userId !== record.requesterId && !worldSettings(this.deps.config, record.worldId).approvers.includes(userId)) {
      return `Only the person who started ${label} or an approver here can cancel it.`;
    }
    const failed = await this.cancel(record);
    this.deps.logger.info({ task: record.id, by: userId, failed }, 'MCP task cancel requested');
    return failed === undefined ? `Cancelling ${label}: the thread is told when it has stopped.` : `${label} could not be cancelled: ${failed}.`;
  }

  /** The requester's connection to the task's server, as their turns make it. */
  private async connect(record: TaskRecord): Promise<Client | string> {
    const server = this.deps.config.mcp.servers.find((entry: McpServerConfig) => entry.name === record.server);
    if (server === undefined) return `the MCP server ${record.server} is no longer configured`;
    const world = worldSettings(this.deps.config, record.worldId);
    const network = world.network.includes('*') || world.network.includes(server.name);
    const connected = await this.deps.connections.get(server, { worldId: record.worldId, personId: record.requesterId, network, egressAllow: world.egressAllow, credentials: world.credentials });
    return connected.ok ? connected.client : connected.why;
  }

  private async running(id: string): Promise<TaskRecord | undefined> {
    const record = await this.book.get(id);
    return record !== undefined && isRunning(record.status) ? record : undefined;
  }

  /** Sends tasks/cancel; the poller sees `cancelled` on its next poll and ends the task once. */
  private async cancel(record: TaskRecord): Promise<string | undefined> {
    const client = await this.connect(record);
    if (typeof client === 'string') return client;
    try {
      await cancelTask(client, record.taskId, this.deps.config.mcp.timeoutMs);
      return undefined;
    } catch (error) {
      return `the MCP server ${record.server} did not cancel it (${oneLine((error as Error).message)})`;
    }
  }
}

/** The new turn's text: the model reads what ended, and answers the person in the thread. */
function endMessage(record: TaskRecord, text: string): string {
  return `[The MCP task ${record.server}: ${record.tool} that you started in this thread has ended. Tell the person the outcome.]\n${text}`;
}

/** A task's input requests as questions to its requester in its thread, unanswered by the world's approval timeout = cancel. */
function taskQuestions(config: Config, questions: McpQuestions) {
  return {
    ask: async (record: TaskRecord, params: QuestionParams) =>
      (await questions.post(record.server, params, { worldId: record.worldId, chatId: record.chatId, requesterId: record.requesterId, timeoutMs: worldSettings(config, record.worldId).approvalTimeoutMs }))?.id,
    answer: (questionId: string) => questions.outcome(questionId),
  };
}
