// The per-person windows on every store kind: a limit holds when instances add at once, a redelivery counts once,
// entries leave the window as time passes, and the wait named is until enough of them have left.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SlidingWindows } from '../../src/access/slidingWindow.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

const folder = await mkdtemp(join(tmpdir(), 'skillbot-window-'));
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await rm(folder, { recursive: true, force: true });
});

const kinds: Array<[string, () => string]> = [
  ['memory', () => 'memory://'],
  ['sqlite', () => `sqlite://${join(folder, 'store.sqlite')}`],
  ...(process.env.REDIS_URL ? [['redis', () => {
    const parsed = new URL(process.env.REDIS_URL ?? '');
    parsed.pathname = '/12';
    return parsed.toString();
  }] as [string, () => string]] : []),
];

describe.each(kinds)('sliding windows on %s', (_kind, url) => {
  it('of 20 takes at once by two store connections, exactly the limit pass', async () => {
    const first = await createStore(url());
    stores.push(first);
    // SQLite and Redis: a second connection, as a second instance would hold; memory has one process.
    const second = url() === 'memory://' ? first : await createStore(url());
    if (second !== first) stores.push(second);
    const key = `test-window:${randomBytes(4).toString('hex')}`;
    const windows = [new SlidingWindows(first), new SlidingWindows(second)];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => windows[i % 2]?.take(key, `m${i}`, 1, 60_000, 5)));
    expect(results.filter((result) => result?.ok)).toHaveLength(5);
    expect((await windows[0]?.state(key, 60_000))?.total).toBe(5);
  });

  it('counts a redelivered id once, lets old entries go, and names when the next fits', async () => {
    const store = await createStore(url());
    stores.push(store);
    let now = 1_000_000;
    const windows = new SlidingWindows(store, () => now);
    const key = `test-window:${randomBytes(4).toString('hex')}`;
    expect((await windows.take(key, 'a', 30, 60_000, 50)).ok).toBe(true);
    now += 10_000;
    expect((await windows.take(key, 'b', 20, 60_000, 50)).ok).toBe(true);
    expect((await windows.take(key, 'b', 20, 60_000, 50)).total).toBe(50);
    const refused = await windows.take(key, 'c', 10, 60_000, 50);
    expect(refused).toEqual({ ok: false, total: 50, retryAt: 1_060_000 });
    now = 1_060_001;
    expect(await windows.take(key, 'c', 10, 60_000, 50)).toEqual({ ok: true, total: 30 });
  });
});
