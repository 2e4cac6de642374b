// A task's `input_required` question survives the instance that asked it (issue 38 item 4): two bot instances share
// one SQLite store file; A polls the task, meets `input_required` and puts the server's question to the requester
// (a stored question record); A dies before anyone answers; B takes the task over when A's lease lapses, does not
// ask again, reads the person's answer (given on B) from the store, sends it in one tasks/update, and ends the task
// once. The server is the official SDK's low-level Server over an in-memory transport.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAuditLog } from '../../src/approvals/index.ts';
import { McpQuestions } from '../../src/mcp/questions/questions.ts';
import type { McpQuestion } from '../../src/mcp/questions/questionTypes.ts';
import { taskHandleOf } from '../../src/mcp/taskWire.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { until } from '../until.ts';
import { usePollerInstances } from './fixtures/pollerInstances.ts';

const QUESTION = { method: 'elicitation/create', params: { mode: 'form', message: 'How many replicas?', requestedSchema: { type: 'object', properties: { replicas: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['replicas'] } } };

/** A release server: each call is a task that asks for replicas after 300 ms and completes once told. */
function releaseServer() {
  const jobs = new Map<string, { started: number; answers: Array<{ action: string; content?: { replicas?: number } }> }>();
  const connect = async (): Promise<Client> => {
    const server = new Server({ name: 'releases', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'release', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler('tools/call', async () => {
      const taskId = `release-${jobs.size + 1}`;
      jobs.set(taskId, { started: Date.now(), answers: [] });
      const now = new Date().toISOString();
      return { resultType: 'task', taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: null, pollIntervalMs: 200 } as never;
    });
    const byId = { params: z.object({ taskId: z.string() }).passthrough() };
    const handle = (method: string, answer: (taskId: string, ctx: { mcpReq: { inputResponses?: Record<string, unknown> } }) => Record<string, unknown>) =>
      (server as unknown as { setRequestHandler(m: string, s: unknown, h: (p: { taskId: string }, ctx: never) => unknown): void }).setRequestHandler(method, byId, async (params, ctx) => answer(params.taskId, ctx));
    handle('tasks/get', (taskId) => {
      const job = jobs.get(taskId)!;
      const base = { taskId, createdAt: '', lastUpdatedAt: '', ttlMs: null, pollIntervalMs: 200 };
      if (Date.now() - job.started < 300) return { ...base, status: 'working' };
      if (job.answers.length === 0) return { ...base, status: 'input_required', inputRequests: { 'replicas-1': QUESTION } };
      return { ...base, status: 'completed', result: { content: [{ type: 'text', text: `released with ${job.answers[0]!.content?.replicas} replicas` }] } };
    });
    // The SDK lifts `inputResponses` out of the params into the request's context.
    handle('tasks/update', (taskId, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.['replicas-1'];
      if (answer !== undefined) jobs.get(taskId)!.answers.push(answer as never);
      return {};
    });
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    await server.connect(theirs);
    const client = new Client({ name: 'skillbot', version: '1' }, { capabilities: {} });
    await client.connect(mine);
    return client;
  };
  return { connect, jobs };
}

const STATE_KEY = randomBytes(32);
const startInstance = usePollerInstances();

async function instance(file: string, name: string, client: Client) {
  const shown: McpQuestion[] = [];
  let made: McpQuestions | undefined;
  const { store, book, poller } = await startInstance(file, name, client, (store) => {
    const questions = new McpQuestions({ store, audit: createAuditLog(store), logger: silentLogger(), stateKey: STATE_KEY });
    questions.addPresenter('terminal', { present: async (question) => void shown.push(question), resolved: async () => {} });
    made = questions;
    return {
      inputs: {
        ask: async (record, params) => (await questions.post(record.server, params, { worldId: record.worldId, chatId: record.chatId, requesterId: record.requesterId, timeoutMs: 60_000 }))?.id,
        answer: (id) => questions.outcome(id),
      },
    };
  });
  const questions = made!;
  return { store, book, poller, questions, shown };
}

describe("an input_required task's question across instances", () => {
  it('is asked once by the lease holder, answered after it died, and passed on by the instance that took over', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'task-input-')), 'shared.sqlite');
    const server = releaseServer();
    const client = await server.connect();
    const a = await instance(file, 'A', client);
    const b = await instance(file, 'B', client);
    const handle = taskHandleOf(await client.callTool({ name: 'release', arguments: {} }))!;
    const now = Date.now();
    const record = await a.book.add({ status: handle.status, server: 'releases', tool: 'release', taskId: handle.taskId, worldId: 'terminal:local', chatId: 'terminal:local/t1', requesterId: 'U1', startedAt: now, deadline: now + 3_600_000 }, 3);
    if (record === 'full') throw new Error('full');
    await a.poller.adopt(record);
    a.poller.start();
    b.poller.start();
    await until(() => a.shown.length === 1 || undefined, 'the question shown by A', 10_000);
    expect(a.shown[0]).toMatchObject({ server: 'releases', message: 'How many replicas?', requesterId: 'U1', chatId: 'terminal:local/t1' });
    a.poller.stop(); // A dies with the question open: its lease lapses, B takes the task over.

    // The person answers on B (any instance takes an answer); B reads it from the store and sends it.
    const answered = await b.questions.answer({ questionId: a.shown[0]!.id, userId: 'U1', action: 'accept', typed: { replicas: '4' } });
    expect(answered.kind).toBe('answered');
    await until(async () => (await b.store.inboxHead(record.chatId, 10)).length > 0 || undefined, "the task's end in B's inbox", 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const inbox = await b.store.inboxHead<{ text: string; by: string }>(record.chatId, 10);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.value).toMatchObject({ by: 'B' });
    expect(inbox[0]!.value.text).toContain('released with 4 replicas');
    expect(server.jobs.get(handle.taskId)!.answers).toEqual([{ action: 'accept', content: { replicas: 4 } }]);
    expect(b.shown).toHaveLength(0);
    expect(await b.book.get(record.id)).toMatchObject({ status: 'completed', sent: ['replicas-1'] });
  }, 60_000);
});
