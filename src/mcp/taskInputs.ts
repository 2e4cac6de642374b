// A long task's `input_required` (tasks extension, SEP-2663): each outstanding elicitation in the task's
// `inputRequests` becomes a question put to the task's requester in its thread, as a stored question record (so
// the answer survives a restart and is read by whichever instance polls next), and the answers go back to the
// server in one `tasks/update`, each key at most once. The poller calls this on each poll of such a task; it never
// waits for a person (the poll loop serves every task of the instance).
import type { Client, ElicitResult } from '@modelcontextprotocol/client';
import type { Logger } from '../ops/log.ts';
import type { TaskRecord } from './taskBook.ts';
import { type DetailedTask, elicitationOf, type TaskElicitation, updateTask } from './taskWire.ts';

export interface TaskInputDeps {
  /** Puts one request to the task's requester (a stored, shown question); its id, or undefined when it cannot be shown. */
  ask(record: TaskRecord, params: TaskElicitation): Promise<string | undefined>;
  /** The answer to such a question as the server is to hear it; undefined while nobody answered. */
  answer(questionId: string): Promise<ElicitResult | undefined>;
  logger: Logger;
  timeoutMs: number;
}

export interface InputsStep {
  /** What the task record is to hold now (`inputs`, `sent`); unchanged when nothing moved. */
  inputs: Record<string, string>;
  sent: string[];
  changed: boolean;
  /** A person is still being asked: the task is polled sooner, to pass the answer on without waiting 30 s. */
  waiting: boolean;
  /** Answers went to the server this time. */
  delivered: boolean;
}

/**
 * One pass over the task's outstanding requests: asks the new ones, collects the answered ones and sends them.
 * A request that cannot be a question (sampling, roots, malformed) is logged and left: the task ends at its deadline
 * (MCP_TASK_MAX_MS) unless the server gives up sooner.
 */
export async function answerInputs(deps: TaskInputDeps, record: TaskRecord, client: Client, task: DetailedTask): Promise<InputsStep> {
  const inputs = { ...record.inputs };
  const sent = new Set(record.sent ?? []);
  const responses: Record<string, ElicitResult> = {};
  let changed = false;
  let waiting = false;
  for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
    if (sent.has(key)) continue;
    const questionId = inputs[key];
    if (questionId !== undefined) {
      const answer = await deps.answer(questionId);
      if (answer === undefined) waiting = true;
      else responses[key] = answer;
      continue;
    }
    const elicitation = elicitationOf(request);
    if (!elicitation.ok) {
      deps.logger.warn({ task: record.id, server: record.server, key, why: elicitation.why }, 'an MCP task asked for input the bot cannot give: left unanswered');
      continue;
    }
    const asked = await deps.ask(record, elicitation.params);
    // Nowhere to show it (a platform without a presenter): the server hears cancel, as a call's question would.
    if (asked === undefined) responses[key] = { action: 'cancel' };
    else {
      inputs[key] = asked;
      changed = true;
      waiting = true;
    }
  }
  const keys = Object.keys(responses);
  if (keys.length > 0) {
    await updateTask(client, record.taskId, responses, deps.timeoutMs);
    for (const key of keys) sent.add(key);
    changed = true;
    deps.logger.info({ task: record.id, server: record.server, keys, actions: keys.map((key) => responses[key]!.action) }, 'MCP task input sent');
  }
  return { inputs, sent: [...sent], changed, waiting, delivered: keys.length > 0 };
}
