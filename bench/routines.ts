// 1,000 routines due in the same minute, two scheduler instances sharing one store: every one runs exactly once,
// and what a scan costs the scheduler itself (time, store operations) is printed, with an idle scan for contrast.
// Run: npm run bench:routines [routines]   (REDIS_URL set: on Redis; else on SQLite in a temporary folder)
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, PlatformPort } from '../src/platform/port.ts';
import { silentLogger } from '../src/ops/log.ts';
import { RoutineBook } from '../src/routines/book.ts';
import type { Routine } from '../src/routines/records.ts';
import { Scheduler } from '../src/routines/scheduler.ts';
import { countedStore } from '../src/store/countedStore.ts';
import { createStore } from '../src/store/createStore.ts';
import type { Store } from '../src/store/types.ts';

const count = Number(process.argv[2] ?? 1000);
const WORLD = 'slack:TBENCH:CBENCH';
const MINUTE = 60_000;
const start = Math.ceil(Date.now() / MINUTE) * MINUTE + 10 * MINUTE;

async function openStore(): Promise<{ store: Store; done: () => Promise<void> }> {
  if (process.env.REDIS_URL) {
    const store = await createStore(process.env.REDIS_URL, { keyPrefix: `skillbot-bench:${randomUUID()}:` });
    return { store, done: () => store.close() };
  }
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-bench-routines-'));
  const store = await createStore(`sqlite://${join(dir, 'bench.sqlite')}`);
  return { store, done: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}

const { store: raw, done } = await openStore();
let operations = 0;
const store = countedStore(raw, () => void operations++);
const book = new RoutineBook(store);
const routines: Routine[] = Array.from({ length: count }, (_, index) => ({
  id: `r-${index.toString(16).padStart(8, '0')}`,
  kind: 'routine',
  worldId: WORLD,
  owner: 'UBENCH',
  when: 'every minute',
  schedule: { kind: 'cron', cron: '* * * * *', timezone: 'UTC' },
  instructions: 'post the open incidents',
  paused: false,
  createdAt: start - MINUTE / 2,
}));
await book.update(() => ({ book: { routines, hooks: [] }, result: undefined }));

const runs = new Map<string, number>();
let posted = 0;
const port: PlatformPort = {
  sinkFor: () => { throw new Error('no turns run in this bench'); },
  postRoot: async (worldId) => `${worldId}/${(++posted).toString().padStart(10, '0')}`,
};
let now = start - 1;
function instance(id: string): Scheduler {
  return new Scheduler({
    store,
    book,
    instanceId: id,
    port: () => port,
    // The dispatcher's accept, as it is: one atomic store step (dedupe key + inbox entry).
    accept: async (message: IncomingMessage, keys: string[]) => {
      const outcome = await store.accept(keys, MINUTE * 120, { chatId: message.chatId, item: { id: randomUUID(), at: Date.now(), value: message } });
      if (outcome === 'queued' && message.origin) runs.set(message.origin.id, (runs.get(message.origin.id) ?? 0) + 1);
      return outcome;
    },
    logger: silentLogger(),
    claimTtlMs: 3 * 24 * 3_600_000,
    clock: () => now,
    tickMs: 5_000,
    graceMs: 0,
    noteSkipped: async () => undefined,
  });
}
const [a, b] = [instance('bench-a'), instance('bench-b')];
// Both start (each looks back over the grace window: nothing is due yet).
await Promise.all([a.start(), b.start()]);
await Promise.all([a.stop(), b.stop()]);

async function measure(label: string): Promise<void> {
  operations = 0;
  const [first, second] = await Promise.all([a.scan(), b.scan()]);
  const started = (first?.started ?? 0) + (second?.started ?? 0);
  console.log(`${label}: due ${first?.due ?? 0}, started ${started} (a ${first?.started ?? 0}, b ${second?.started ?? 0}); scan time a ${first?.ms.toFixed(1)} ms, b ${second?.ms.toFixed(1)} ms; store operations ${operations} (${(operations / Math.max(1, count)).toFixed(2)} per routine, both instances)`);
}

console.log(`${count} routines every minute, 2 instances, store: ${raw.kind}`);
now = start - 1_000;
await measure('idle scan (nothing due)');
now = start + 1_000;
await measure(`scan over the minute of ${new Date(start).toISOString()}`);
now = start + 6_000;
await measure('next scan, same minute (nothing due)');
const once = [...runs.values()].filter((value) => value === 1).length;
const twice = [...runs.values()].filter((value) => value > 1).length;
console.log(`runs: ${once} routines ran exactly once, ${twice} more than once, ${count - runs.size} not at all; root messages posted: ${posted}`);
await done();
if (once !== count || posted !== count) process.exitCode = 1;
