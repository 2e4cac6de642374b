// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) as the SDK's v2 client lets us speak it. The SDK
// ships no runtime for tasks (its types call them "wire vocabulary with no SDK runtime"), so the methods go through
// its generic request funnel with the extension's result shapes checked here (zod at the edge). A tools/call answered
// with a task handle is recognised by its fields: on the 2025-11-25 handshake the SDK strips `resultType` and keeps
// the rest; on 2026-07-28 its codec refuses `resultType: "task"` outright, so such a server's call fails as before.
import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';


const TASK_STATES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

const handleSchema = z.object({
  taskId: z.string().min(1).max(200),
  status: z.enum(TASK_STATES),
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().int().nonnegative().optional(),
});

type TaskHandle = z.infer<typeof handleSchema>;

/** tasks/get: the task now, with its result (completed), its error (failed) or its questions (input_required). */
const detailedSchema = handleSchema.extend({
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.number(), message: z.string() }).passthrough().optional(),
  inputRequests: z.record(z.string().max(200), z.unknown()).optional(),
});

/**
 * An `input_required` task's elicitation, checked here as the SDK checks a standalone `elicitation/create` (it does
 * not see these: they arrive inside tasks/get): a form of primitive fields, or a URL that parses.
 */
const elicitationSchema = z.object({
  method: z.literal('elicitation/create'),
  params: z.looseObject({
    mode: z.enum(['form', 'url']).optional(),
    message: z.string().max(10_000),
    requestedSchema: z.looseObject({ type: z.literal('object'), properties: z.record(z.string(), z.record(z.string(), z.unknown())), required: z.array(z.string()).optional() }).optional(),
    url: z.string().refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol)).optional(),
  }),
});
export type TaskElicitation = z.infer<typeof elicitationSchema>['params'];

/** A request of `inputRequests` as a question, or why it cannot be one (sampling, roots, a malformed form). */
export function elicitationOf(request: unknown): { ok: true; params: TaskElicitation } | { ok: false; why: string } {
  const parsed = elicitationSchema.safeParse(request);
  if (!parsed.success) return { ok: false, why: `not an elicitation the bot can show (${String((request as { method?: unknown } | null)?.method ?? 'no method').slice(0, 40)})` };
  const { params } = parsed.data;
  if (params.mode === 'url' ? params.url === undefined : params.requestedSchema === undefined) return { ok: false, why: 'an elicitation without its form or URL' };
  return { ok: true, params };
}
export type DetailedTask = z.infer<typeof detailedSchema>;

const ackSchema = z.object({}).passthrough();

/** The task handle a tools/call result carries instead of a result, if it carries one. */
export function taskHandleOf(result: unknown): TaskHandle | undefined {
  if (typeof result !== 'object' || result === null || !('taskId' in result)) return undefined;
  const parsed = handleSchema.safeParse(result);
  return parsed.success ? parsed.data : undefined;
}

export async function getTask(client: Client, taskId: string, timeoutMs: number): Promise<DetailedTask> {
  return client.request({ method: 'tasks/get', params: { taskId } }, detailedSchema, { timeout: timeoutMs });
}

/** tasks/update: answers to the task's outstanding input requests, by key; the server acknowledges with nothing. */
export async function updateTask(client: Client, taskId: string, inputResponses: Record<string, unknown>, timeoutMs: number): Promise<void> {
  await client.request({ method: 'tasks/update', params: { taskId, inputResponses } }, ackSchema, { timeout: timeoutMs });
}

/** Cancellation is cooperative: the server acknowledges, and the task reads `cancelled` once it stopped. */
export async function cancelTask(client: Client, taskId: string, timeoutMs: number): Promise<void> {
  await client.request({ method: 'tasks/cancel', params: { taskId } }, ackSchema, { timeout: timeoutMs });
}
