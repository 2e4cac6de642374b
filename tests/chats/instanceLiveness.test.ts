// Noticing a dead instance (issue 20's failover): on Redis a process that dies loses its named connections at
// once, so others take it for dead within about a second of its last beat instead of when its 3 s liveness record
// lapses; one whose connection only dropped reconnects, beats again, and stays alive.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { InstanceLiveness, isInstanceAlive } from '../../src/chats/instanceLiveness.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

const REDIS_URL = process.env.REDIS_URL;
if (process.env.CI === 'true' && !REDIS_URL) throw new Error('REDIS_URL must be set under CI: the liveness tests need a Redis server');

const ROOT = path.join(import.meta.dirname, '..', '..');
const LIVENESS = { ttlMs: 3_000, heartbeatMs: 1_000 };

/** An instance in a process of its own: opens the store under `instanceId`, beats, and says "ready". */
const INSTANCE = `
import { createStore } from './src/store/createStore.ts';
import { InstanceLiveness } from './src/chats/instanceLiveness.ts';
import { silentLogger } from './src/ops/log.ts';
const [url, keyPrefix, instanceId] = process.argv.slice(1);
const store = await createStore(url, { keyPrefix, instanceId });
await new InstanceLiveness({ store, instanceId, ttlMs: ${LIVENESS.ttlMs}, heartbeatMs: ${LIVENESS.heartbeatMs}, logger: silentLogger() }).ensure();
console.log('ready');
setInterval(() => undefined, 1_000);
`;

/** How long until `check` turns false, polled every 50 ms (capped). */
async function msUntilFalse(check: () => Promise<boolean>, capMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < capMs) {
    if (!(await check())) return Date.now() - start;
    await sleep(50);
  }
  return Number.POSITIVE_INFINITY;
}

describe.runIf(REDIS_URL)('a dead instance on Redis', () => {
  const url = REDIS_URL ?? '';
  const keyPrefix = `skillbot-test:${randomUUID()}:`;
  const opened: Store[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('is taken for dead within 2 s of SIGKILL, not at its 3 s TTL; a live one stays alive', async () => {
    const watcher = await createStore(url, { keyPrefix, instanceId: `watcher-${randomUUID()}` });
    opened.push(watcher);
    const id = `doomed-${randomUUID()}`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', INSTANCE, url, keyPrefix, id], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`the instance exited (${code})`)));
    });
    expect(await isInstanceAlive(watcher, id)).toBe(true);
    child.kill('SIGKILL');
    const killedAt = Date.now();
    const gone = await msUntilFalse(() => isInstanceAlive(watcher, id), 5_000);
    // Its record would still be there: only the closed connection tells.
    expect(await watcher.get('leases', `instance:${id}`)).toBeDefined();
    expect(Date.now() - killedAt).toBeLessThan(LIVENESS.ttlMs);
    expect(gone).toBeLessThan(2_000);
  });

  it('whose connection drops and comes back stays alive throughout', async () => {
    const watcher = await createStore(url, { keyPrefix, instanceId: `watcher-${randomUUID()}` });
    const id = `blip-${randomUUID()}`;
    const instance = await createStore(url, { keyPrefix, instanceId: id });
    opened.push(watcher, instance);
    const liveness = new InstanceLiveness({ store: instance, instanceId: id, ...LIVENESS, logger: silentLogger() });
    await liveness.ensure();
    const admin = createClient({ url });
    await admin.connect();
    try {
      // The server drops the instance's connections (a network blip); the client reconnects by itself.
      const ids = (await admin.clientList()).filter((client) => client.name === `skillbot:${id}`).map((client) => String(client.id));
      expect(ids.length).toBeGreaterThan(0);
      for (const clientId of ids) await admin.sendCommand(['CLIENT', 'KILL', 'ID', clientId]);
      const samples: boolean[] = [];
      for (let at = 0; at < 2_500; at += 100) {
        samples.push(await isInstanceAlive(watcher, id));
        await sleep(100);
      }
      expect(samples.every(Boolean)).toBe(true);
    } finally {
      admin.destroy();
      await liveness.stop({ remove: true });
    }
  });
});
