// What deciding on a message costs (src/access): the access rules and a person's turn counted in the store, per
// message, on SQLite and (with REDIS_URL) Redis; the default settings beside a world with rules and limits.
// Run: npm run bench:access [messages]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Access } from '../src/access/access.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/ops/log.ts';
import { Metrics } from '../src/ops/metrics.ts';
import { createStore } from '../src/store/createStore.ts';

const messages = Number(process.argv[2] ?? 500);
const folder = await mkdtemp(join(tmpdir(), 'skillbot-bench-access-'));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function measure(storeUrl: string, configYaml: string): Promise<{ p50: number; p99: number; roundTrips: number }> {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, configYaml);
  const config = loadConfig({ SKILLBOT_CONFIG: file, STORE_URL: storeUrl });
  const store = await createStore(storeUrl);
  const access = new Access({ config, store, logger: silentLogger(), metrics: new Metrics() });
  // Slack's facts as a platform would give them, without a network (the cache keeps them 5 minutes anyway).
  access.register('slack', { membership: async () => ({ guest: false, external: false, groups: ['S1'], bot: false }) });
  const run = Math.random().toString(36).slice(2);
  // The first messages warm the store's connection and statements up; they are not measured.
  for (let i = 0; i < 50; i++) await access.admit({ worldId: 'slack:T1:C1', userId: `W${run}`, direct: false, key: `w${run}${i}` });
  const times: number[] = [];
  const before = store.roundTrips;
  for (let i = 0; i < messages; i++) {
    const start = performance.now();
    // Ten people sharing the world: each person's window holds at most messages / 10 entries.
    const verdict = await access.admit({ worldId: 'slack:T1:C1', userId: `U${run}${i % 10}`, direct: false, key: `m${run}${i}` });
    times.push(performance.now() - start);
    if (verdict.kind !== 'allowed') throw new Error(`message ${i} was ${verdict.kind}`);
  }
  const roundTrips = (store.roundTrips - before) / messages;
  await store.close();
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), roundTrips };
}

const stores = [`sqlite://${join(folder, 'bench.sqlite')}`, ...(process.env.REDIS_URL ? [process.env.REDIS_URL.replace(/\/\d*$/, '') + '/13'] : [])];
const settings: Array<[string, string]> = [
  ['default settings', '{}\n'],
  ['users + groups + guests/external deny + limits', 'defaults:\n  access: { users: [U0], groups: [S1], guests: deny, external: deny }\n  limits: { turnsPerPersonPerHour: 100000, tokensPerPersonPerDay: 100000000 }\n'],
];
console.log(`access: ${messages} messages per row (ten people), admit() per message`);
for (const storeUrl of stores) {
  for (const [name, yaml] of settings) {
    const { p50, p99, roundTrips } = await measure(storeUrl, yaml);
    console.log(`${storeUrl.split(':')[0]?.padEnd(6)} ${name.padEnd(48)} p50 ${p50.toFixed(3)} ms  p99 ${p99.toFixed(3)} ms  store round trips ${roundTrips.toFixed(1)}`);
  }
}
await rm(folder, { recursive: true, force: true });
