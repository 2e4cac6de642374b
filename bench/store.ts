// npm run bench:store — what the store costs per turn and per idle second, in an empty database and in one holding
// 1,000,000 other keys, on SQLite and on Redis. Turns enter as platform messages do (dispatcher.accept) and are
// answered by a zero-latency fake model in another thread. Prints, per backend and size: store round trips per
// turn (client side; Redis also server-side commands, INFO commandstats, Lua's inner calls included), round trips
// and commands per idle second, accept → reply wall time p50/p99, and the large/empty ratios.
//
// Redis: BENCH_REDIS_URL must name a server you own (DBs 14 and 15 are filled and FLUSHDB'd), e.g. one started with
//   redis-server --daemonize yes --bind 127.0.0.1 --port 6390 --save "" --appendonly no
// Without it only SQLite runs. BENCH_OTHER_KEYS (default 1000000) and BENCH_TURNS (default 30) scale the run.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { createClient } from '@keyv/redis';
import sqlite3 from 'sqlite3';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/ops/log.ts';
import { createStore } from '../src/store/createStore.ts';

const OTHER_KEYS = Number(process.env.BENCH_OTHER_KEYS ?? 1_000_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 30);
/** Rounds alternate empty and large, so that the load of a shared machine falls on both alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = 10_000;
const REDIS_URL = process.env.BENCH_REDIS_URL || undefined;
const NAMESPACES = ['history', 'dedupe', 'audit', 'chats', 'usage', 'leases'];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const otherKey = (i: number) => `${NAMESPACES[i % NAMESPACES.length]}:other-${i.toString(36)}`;
const otherValue = (i: number) => JSON.stringify({ value: { note: `another record of someone else's, number ${i}`, at: Date.now() } });

interface Run {
  trips: number;
  commands: number;
  walls: number[];
  idle?: { trips: number; commands: number };
}

interface Figures {
  backend: string;
  size: string;
  tripsPerTurn: number;
  commandsPerTurn?: number;
  tripsPerIdleSecond: number;
  commandsPerIdleSecond?: number;
  p50: number;
  p99: number;
}

async function fillSqlite(file: string): Promise<void> {
  const store = await createStore(`sqlite://${file}`); // creates the table and its indexes as the bot does
  await store.close();
  const db = new sqlite3.Database(file);
  const run = (sql: string, ...params: unknown[]) => new Promise<void>((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
  await run('BEGIN');
  const insert = db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)');
  for (let i = 0; i < OTHER_KEYS; i++) {
    await new Promise<void>((resolve, reject) => insert.run([otherKey(i), otherValue(i)], (error: Error | null) => (error ? reject(error) : resolve())));
  }
  await new Promise<void>((resolve) => insert.finalize(() => resolve()));
  await run('COMMIT');
  await run('PRAGMA wal_checkpoint(TRUNCATE)');
  await new Promise<void>((resolve) => db.close(() => resolve()));
}

type Admin = ReturnType<typeof createClient>;

async function fillRedis(admin: Admin): Promise<void> {
  const batch = 10_000;
  for (let start = 0; start < OTHER_KEYS; start += batch) {
    const multi = admin.multi();
    for (let i = start; i < Math.min(OTHER_KEYS, start + batch); i++) multi.set(`skillbot:${otherKey(i)}`, otherValue(i));
    await multi.execAsPipeline();
  }
}

/** Commands the Redis server has run so far (every cmdstat's calls, minus the INFO calls that read them). */
async function serverCommands(admin: Admin): Promise<number> {
  const info = await admin.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (match[1] !== 'info' && match[1] !== 'select') total += Number(match[2]);
  return total;
}

async function measure(backend: string, size: string, storeUrl: string, modelUrl: string, dir: string, idle: boolean, admin?: Admin): Promise<Run> {
  const config = loadConfig({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: modelUrl, SKILLS_DIRS: join(dir, 'skills'), STORE_URL: storeUrl });
  const app = await createApp(config, silentLogger(), { watchSkills: false });
  const waiting = new Map<string, () => void>();
  app.dispatcher.addPort('terminal', {
    sinkFor: (message) => ({
      progress() {},
      async reply() {
        waiting.get(message.text)?.();
      },
    }),
  });
  app.dispatcher.start();
  const turn = async (text: string, chat: number) => {
    const answered = new Promise<void>((resolve) => waiting.set(text, resolve));
    const outcome = await app.dispatcher.accept({ worldId: 'terminal:local', chatId: `terminal:local/bench-${chat}`, userId: 'U', text }, [`bench:${text}`]);
    if (outcome !== 'queued') throw new Error(`bench turn not queued: ${outcome}`);
    await answered;
  };
  for (let i = 0; i < 5; i++) await turn(`${backend}-${size}-warm-${i}-${Date.now()}`, i);

  const walls: number[] = [];
  const tripsBefore = app.store.roundTrips;
  const commandsBefore = admin ? await serverCommands(admin) : 0;
  for (let i = 0; i < TURNS; i++) {
    const started = performance.now();
    await turn(`${backend}-${size}-turn-${i}-${Date.now()}`, i % 5);
    walls.push(performance.now() - started);
  }
  const run: Run = {
    trips: app.store.roundTrips - tripsBefore,
    commands: admin ? (await serverCommands(admin)) - commandsBefore : 0,
    walls,
  };
  if (idle) {
    await delay(1_500); // let the last turn's lease and reply claims settle
    const idleTripsBefore = app.store.roundTrips;
    const idleCommandsBefore = admin ? await serverCommands(admin) : 0;
    await delay(IDLE_MS);
    run.idle = { trips: app.store.roundTrips - idleTripsBefore, commands: admin ? (await serverCommands(admin)) - idleCommandsBefore : 0 };
  }
  await app.dispatcher.stop(1_000);
  await app.close();
  return run;
}

function figures(backend: string, size: string, runs: Run[], redis: boolean): Figures {
  const turns = runs.length * TURNS;
  const walls = runs.flatMap((run) => run.walls);
  const idle = runs.find((run) => run.idle)?.idle ?? { trips: 0, commands: 0 };
  return {
    backend,
    size,
    tripsPerTurn: runs.reduce((sum, run) => sum + run.trips, 0) / turns,
    ...(redis ? { commandsPerTurn: runs.reduce((sum, run) => sum + run.commands, 0) / turns } : {}),
    tripsPerIdleSecond: idle.trips / (IDLE_MS / 1000),
    ...(redis ? { commandsPerIdleSecond: idle.commands / (IDLE_MS / 1000) } : {}),
    p50: percentile(walls, 50),
    p99: percentile(walls, 99),
  };
}

const dir = await mkdtemp(join(tmpdir(), 'skillbot-bench-store-'));
await mkdir(join(dir, 'skills'));
const worker = new Worker(new URL('./fakeWorker.mjs', import.meta.url), { workerData: { reply: 'ok, done.' } });
const { url: modelUrl } = await new Promise<{ url: string }>((resolve) => worker.once('message', resolve));
const results: Figures[] = [];
try {
  // SQLite: one file per size, the large one filled once.
  const files = { empty: join(dir, 'empty.sqlite'), large: join(dir, 'large.sqlite') };
  const fillStarted = performance.now();
  await fillSqlite(files.large);
  console.log(`sqlite: ${OTHER_KEYS} other rows written in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);
  const sqliteRuns: Record<string, Run[]> = { empty: [], large: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of ['empty', 'large'] as const) {
      sqliteRuns[size]!.push(await measure('sqlite', size, `sqlite://${files[size]}`, modelUrl, dir, round === ROUNDS - 1));
    }
  }
  for (const size of ['empty', 'large']) results.push(figures('sqlite', size, sqliteRuns[size]!, false));

  if (REDIS_URL) {
    // Redis: DB 14 stays empty, DB 15 holds the other keys; one admin client each reads the server's command counts.
    const admins: Record<string, Admin> = {};
    const urls: Record<string, string> = {};
    for (const [size, db] of [['empty', 14], ['large', 15]] as const) {
      urls[size] = `${REDIS_URL.replace(/\/\d*$/, '')}/${db}`;
      const admin: Admin = createClient({ url: urls[size] });
      await admin.connect();
      await admin.flushDb();
      admins[size] = admin;
    }
    try {
      const started = performance.now();
      await fillRedis(admins.large!);
      console.log(`redis: ${await admins.large!.dbSize()} keys in the database after ${((performance.now() - started) / 1000).toFixed(1)} s of filling`);
      const redisRuns: Record<string, Run[]> = { empty: [], large: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const size of ['empty', 'large'] as const) {
          redisRuns[size]!.push(await measure('redis', size, urls[size]!, modelUrl, dir, round === ROUNDS - 1, admins[size]));
        }
      }
      for (const size of ['empty', 'large']) results.push(figures('redis', size, redisRuns[size]!, true));
    } finally {
      for (const admin of Object.values(admins)) {
        await admin.flushDb();
        admin.destroy();
      }
    }
  } else {
    console.log('redis: skipped (set BENCH_REDIS_URL to a server you own)');
  }
} finally {
  worker.postMessage('close');
  await rm(dir, { recursive: true, force: true });
}

const fmt = (value: number | undefined, digits = 1) => (value === undefined ? '-' : value.toFixed(digits));
console.log(`\n${ROUNDS} rounds of ${TURNS} sequential turns per backend and size; large = ${OTHER_KEYS} other keys; idle measured over ${IDLE_MS / 1000} s`);
console.log('backend  size   trips/turn  cmds/turn  trips/idle-s  cmds/idle-s  accept→reply p50 ms  p99 ms');
for (const r of results) {
  console.log(
    `${r.backend.padEnd(8)} ${r.size.padEnd(6)} ${fmt(r.tripsPerTurn).padStart(10)} ${fmt(r.commandsPerTurn).padStart(10)} ${fmt(r.tripsPerIdleSecond).padStart(13)} ${fmt(r.commandsPerIdleSecond).padStart(12)} ${fmt(r.p50).padStart(20)} ${fmt(r.p99).padStart(7)}`,
  );
}
let ok = true;
for (const backend of ['sqlite', 'redis']) {
  const empty = results.find((r) => r.backend === backend && r.size === 'empty');
  const large = results.find((r) => r.backend === backend && r.size === 'large');
  if (!empty || !large) continue;
  const ratios = {
    'trips/turn': large.tripsPerTurn / empty.tripsPerTurn,
    ...(large.commandsPerTurn && empty.commandsPerTurn ? { 'cmds/turn': large.commandsPerTurn / empty.commandsPerTurn } : {}),
    'p50': large.p50 / empty.p50,
  };
  const line = Object.entries(ratios).map(([name, ratio]) => `${name} ${ratio.toFixed(2)}`).join(', ');
  const holds = Object.values(ratios).every((ratio) => ratio <= 1.2);
  ok &&= holds;
  console.log(`${backend}: large/empty ${line} ${holds ? '(≤ 1.2)' : '(ABOVE 1.2)'}`);
}
process.exitCode = ok ? 0 : 1;
