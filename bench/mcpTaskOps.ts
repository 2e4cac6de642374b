// Part of `npm run bench:mcp`: the store operations one running MCP task costs, counted at the Store interface.
// Two instances share one store (each sees it through its own counting wrapper): A started the task and holds its
// lease, B only reads the index; the server keeps the task `working` for the whole run. The poller's clocks (first
// poll 1 s ×1.5 to 30 s, lease 60 s, index read 5 s, the 1 s tick) run SCALE times faster than real ones, so ten
// minutes of backoff take twelve seconds; figures are per simulated minute: the first (backoff still climbing) and
// the steady ones after it.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TaskBook } from '../src/mcp/taskBook.ts';
import { TaskPoller } from '../src/mcp/taskPoller.ts';
import { silentLogger } from '../src/ops/log.ts';
import { createStore } from '../src/store/createStore.ts';
import type { Store } from '../src/store/types.ts';

const SCALE = 50;
const MINUTES = 10;

interface Counts {
  ops: Map<string, number>;
  bytes: number;
}

/** The store as one instance sees it: every operation counted, with the JSON bytes of its arguments and result. */
function counting(store: Store, counts: Counts): Store {
  const size = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? ''));
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string' || name === 'close') return value;
      return async (...args: unknown[]) => {
        counts.ops.set(name, (counts.ops.get(name) ?? 0) + 1);
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        counts.bytes += size(args) + size(result);
        return result;
      };
    },
  });
}

/** A server whose one task stays `working`, asking for no particular interval. */
async function workingServer(): Promise<Client> {
  const server = new Server({ name: 'jobs', version: '1' }, { capabilities: { tools: {} } });
  const byId = { params: z.object({ taskId: z.string() }).passthrough() };
  (server as unknown as { setRequestHandler(m: string, s: unknown, h: (p: { taskId: string }) => unknown): void }).setRequestHandler('tasks/get', byId, async ({ taskId }) => ({
    taskId, status: 'working', statusMessage: 'building', createdAt: '', lastUpdatedAt: '', ttlMs: null,
  }));
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  await server.connect(theirs);
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await client.connect(mine);
  return client;
}

const total = (counts: Counts) => [...counts.ops.values()].reduce((sum, n) => sum + n, 0);
const snapshot = (counts: Counts) => ({ ops: total(counts), bytes: counts.bytes, byOp: new Map(counts.ops) });

export async function taskStoreFigures(): Promise<void> {
  const shared = await createStore('memory://');
  const client = await workingServer();
  const a: Counts = { ops: new Map(), bytes: 0 };
  const b: Counts = { ops: new Map(), bytes: 0 };
  const poller = (counts: Counts, name: string) => {
    const store = counting(shared, counts);
    const book = new TaskBook(store);
    const scaled = { leaseMs: 60_000 / SCALE, scanMs: 5_000 / SCALE, firstPollMs: 1_000 / SCALE, maxPollMs: 30_000 / SCALE };
    return { book, poller: new TaskPoller({ store, book, instanceId: name, connect: async () => client, end: async () => {}, logger: silentLogger(), timeoutMs: 5_000, ...scaled }) };
  };
  const holder = poller(a, 'A');
  const other = poller(b, 'B');
  const now = Date.now();
  const record = await holder.book.add({ status: 'working', server: 'jobs', tool: 'build', taskId: 'job-1', worldId: 'slack:T1:C1', chatId: 'slack:T1:C1/1.0', requesterId: 'U1', startedAt: now, deadline: now + 86_400_000 }, 10);
  if (record === 'full') throw new Error('full');
  await holder.poller.adopt(record);
  const started = { a: snapshot(a), b: snapshot(b) };
  holder.poller.start();
  other.poller.start();
  const perMinute: Array<{ a: number; b: number; bytesA: number; bytesB: number }> = [];
  let last = started;
  for (let minute = 0; minute < MINUTES; minute++) {
    await new Promise((resolve) => setTimeout(resolve, 60_000 / SCALE));
    const next = { a: snapshot(a), b: snapshot(b) };
    perMinute.push({ a: next.a.ops - last.a.ops, b: next.b.ops - last.b.ops, bytesA: next.a.bytes - last.a.bytes, bytesB: next.b.bytes - last.b.bytes });
    last = next;
  }
  holder.poller.stop();
  other.poller.stop();
  await client.close();
  await shared.close();
  const steady = perMinute.slice(1);
  const mean = (pick: (m: (typeof perMinute)[number]) => number) => steady.reduce((sum, m) => sum + pick(m), 0) / steady.length;
  const ops = (counts: Counts) => [...counts.ops].map(([name, n]) => `${name} ${n}`).join(', ');
  console.log(`one running MCP task, store operations (counted at the Store interface; clocks ×${SCALE}, ${MINUTES} simulated minutes):`);
  console.log(`  first minute: holder ${perMinute[0]!.a} ops (${perMinute[0]!.bytesA} bytes), other instance ${perMinute[0]!.b} ops (${perMinute[0]!.bytesB} bytes)`);
  console.log(`  steady, per minute (minutes 2-${MINUTES}): holder ${mean((m) => m.a).toFixed(1)} ops (${Math.round(mean((m) => m.bytesA))} bytes), other instance ${mean((m) => m.b).toFixed(1)} ops (${Math.round(mean((m) => m.bytesB))} bytes)`);
  console.log(`  by operation over the run: holder ${ops(a)}; other ${ops(b)}`);
}
