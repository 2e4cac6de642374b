// Long MCP calls as tasks (issue 38, item 4): a server of our own on @modelcontextprotocol/server answers tools/call
// with a task handle (SEP-2663), two bot instances share one SQLite store file, and the task's end reaches its
// thread's inbox exactly once whichever instance polls it, also after the polling instance dies.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../src/mcp/taskBook.ts';
import { taskHandleOf } from '../../src/mcp/taskWire.ts';
import { until } from '../until.ts';
import { usePollerInstances } from './fixtures/pollerInstances.ts';
import { type Jobs, jobsServer } from './fixtures/taskHttpServer.ts';

/** A job server: each call becomes a task that completes `runMs` after it started (or is cancelled). */
function jobServer(runMs: number) {
  const jobs: Jobs = new Map();
  const polls: string[] = [];
  const connect = async (who: string): Promise<Client> => {
    const server = jobsServer(jobs, runMs, () => polls.push(who));
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    await server.connect(theirs);
    const client = new Client({ name: 'skillbot', version: '1' }, { capabilities: {} });
    await client.connect(mine);
    return client;
  };
  return { connect, polls, jobs };
}

const startInstance = usePollerInstances();

async function instance(file: string, name: string, client: Client, maxMs = 3_600_000) {
  const { store, book, poller } = await startInstance(file, name, client);
  const startCall = async (): Promise<TaskRecord> => {
    const handle = taskHandleOf(await client.callTool({ name: 'build', arguments: {} }));
    if (handle === undefined) throw new Error('no task handle');
    const now = Date.now();
    const record = await book.add({ status: handle.status, server: 'jobs', tool: 'build', taskId: handle.taskId, worldId: 'slack:T1:C1', chatId: 'slack:T1:C1/1.0', requesterId: 'U1', startedAt: now, deadline: now + maxMs }, 3);
    if (record === 'full') throw new Error('full');
    await poller.adopt(record);
    return record;
  };
  return { store, book, poller, startCall };
}

describe('MCP tasks polled from the store', () => {
  it('a task whose polling instance dies is finished by the other, answered once', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tasks-')), 'shared.sqlite');
    const jobs = jobServer(Number(process.env.TASK_TEST_RUN_MS ?? 8_000));
    const a = await instance(file, 'A', await jobs.connect('A'));
    const b = await instance(file, 'B', await jobs.connect('B'));
    const record = await a.startCall();
    a.poller.start();
    b.poller.start();
    await until(() => jobs.polls.filter((who) => who === 'A').length >= 2 || undefined, "A's polls", 5_000);
    expect(jobs.polls).not.toContain('B');
    a.poller.stop(); // A dies: its lease lapses, B takes the task over.
    await until(async () => (await b.store.inboxHead(record.chatId, 10)).length > 0 || undefined, "the task's end in B's inbox", 60_000 + Number(process.env.TASK_TEST_RUN_MS ?? 8_000));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const inbox = await b.store.inboxHead<{ text: string; by: string }>(record.chatId, 10);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.value.by).toBe('B');
    expect(inbox[0]!.value.text).toContain('build 42 passed');
    expect(jobs.polls).toContain('B');
    expect(await b.book.runningIds()).toEqual([]);
    expect((await b.book.get(record.id))?.status).toBe('completed');
  }, 300_000);

  it('a task past MCP_TASK_MAX_MS is cancelled on the server and the thread is told', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tasks-')), 'shared.sqlite');
    const jobs = jobServer(600_000);
    const a = await instance(file, 'A', await jobs.connect('A'), 1_500);
    const record = await a.startCall();
    a.poller.start();
    await until(async () => (await a.store.inboxHead(record.chatId, 10)).length > 0 || undefined, "the task's end in the inbox", 10_000);
    const inbox = await a.store.inboxHead<{ text: string }>(record.chatId, 10);
    expect(inbox[0]!.value.text).toMatch(/ran past .* \(MCP_TASK_MAX_MS\), so it was cancelled/);
    expect(jobs.jobs.get(record.taskId)?.cancelled).toBe(true);
    expect((await a.book.get(record.id))?.status).toBe('timed_out');
  }, 30_000);

  it('a world at its bound of running tasks starts no more', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tasks-')), 'shared.sqlite');
    const jobs = jobServer(600_000);
    const a = await instance(file, 'A', await jobs.connect('A'));
    for (let i = 0; i < 3; i++) await a.startCall();
    await expect(a.startCall()).rejects.toThrow('full');
    expect((await a.book.list()).map((task) => task.status)).toEqual(['working', 'working', 'working']);
  }, 30_000);
});
