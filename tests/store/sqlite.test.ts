import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import KeyvSqlite from '@keyv/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore, DEFAULT_STORE_URL, StoreError } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { describePubSubContract } from './pubSubContract.ts';
import { describeStoreContract, type BackendUnderTest } from './storeContract.ts';

async function tempSqlite(): Promise<BackendUnderTest> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-store-'));
  return {
    open: async () => createStore(`sqlite://${path.join(dir, 'store.sqlite')}`),
    cleanup: async () => fs.rm(dir, { recursive: true, force: true }),
  };
}

describeStoreContract('sqlite:// (temp file)', tempSqlite, { shared: true });
// SQLite cannot notify another connection: messages reach the publishing store object's subscribers only.
describePubSubContract('sqlite:// (temp file)', tempSqlite, { crossInstance: false });

describe('sqlite store on disk', () => {
  let dir: string;
  const opened: Store[] = [];
  async function open(url: string, opts: Parameters<typeof createStore>[1] = {}): Promise<Store> {
    const store = await createStore(url, opts);
    opened.push(store);
    return store;
  }
  /** Rows as they are in the file, read over a connection of its own. */
  async function rawRows(file: string): Promise<Array<{ key: string; value: string }>> {
    const raw = new KeyvSqlite({ uri: `sqlite://${file}` });
    try {
      return (await raw.query('SELECT key, value FROM keyv ORDER BY key')) as Array<{ key: string; value: string }>;
    } finally {
      await raw.close();
    }
  }

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-sqlite-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(async (store) => store.close()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('creates its folder on first run, relative paths from the working folder (the default URL)', async () => {
    const store = await open(DEFAULT_STORE_URL, { cwd: dir });
    await store.set('history', 'c', 'kept');
    await expect(fs.stat(path.join(dir, 'data', 'skillbot.sqlite'))).resolves.toBeTruthy();
    const deep = path.join(dir, 'a', 'b', 'c', 'bot.sqlite');
    await open(`sqlite://${deep}`);
    await expect(fs.stat(deep)).resolves.toBeTruthy();
  });

  it('keeps data across close and reopen', async () => {
    const url = `sqlite://${path.join(dir, 'bot.sqlite')}`;
    const first = await open(url);
    await first.set('history', 'slack:T1:C1/1.2', { turns: [{ turnId: 't1' }] });
    await first.set('grants', 'g', { status: 'granted' }, 3_600_000);
    expect(await first.claim('dedupe', 'event', 1, 3_600_000)).toBe(true);
    await first.close();
    const second = await open(url);
    expect(await second.get('history', 'slack:T1:C1/1.2')).toEqual({ turns: [{ turnId: 't1' }] });
    expect(await second.get('grants', 'g')).toEqual({ status: 'granted' });
    expect(await second.claim('dedupe', 'event', 2, 3_600_000)).toBe(false);
  });

  it('purges expired rows from the file periodically, keeping live ones', async () => {
    const file = path.join(dir, 'bot.sqlite');
    const store = await open(`sqlite://${file}`, { purgeIntervalMs: 50 });
    await store.set('dedupe', 'short-1', 1, 400);
    await store.claim('dedupe', 'short-2', 2, 400);
    await store.set('dedupe', 'long', 3, 3_600_000);
    await store.set('history', 'forever', 4);
    expect((await rawRows(file)).map((row) => row.key)).toEqual(['dedupe:long', 'dedupe:short-1', 'dedupe:short-2', 'history:forever']);
    const deadline = Date.now() + 10_000;
    while ((await rawRows(file)).length > 2 && Date.now() < deadline) await sleep(50);
    expect((await rawRows(file)).map((row) => row.key)).toEqual(['dedupe:long', 'history:forever']);
  });

  it('writes rows in Keyv\'s own {value, expires} format', async () => {
    const file = path.join(dir, 'bot.sqlite');
    const store = await open(`sqlite://${file}`);
    await store.set('grants', 'g', { status: 'granted' });
    const before = Date.now();
    await store.claim('dedupe', 'd', 'x', 1_000);
    const rows = await rawRows(file);
    expect(JSON.parse(rows.find((row) => row.key === 'grants:g')!.value)).toEqual({ value: { status: 'granted' } });
    const claimed = JSON.parse(rows.find((row) => row.key === 'dedupe:d')!.value) as { value: string; expires: number };
    expect(claimed.value).toBe('x');
    expect(claimed.expires).toBeGreaterThanOrEqual(before + 1_000);
  });

  it('surfaces a database failure as an error on every operation, never as "not found"', async () => {
    const file = path.join(dir, 'bot.sqlite');
    const store = await open(`sqlite://${file}`);
    await store.set('grants', 'g', 'v');
    // Someone else breaks the database under the running store.
    const raw = new KeyvSqlite({ uri: `sqlite://${file}` });
    await raw.query('DROP TABLE keyv');
    await raw.close();
    await expect(store.get('grants', 'g')).rejects.toThrow(/sqlite get grants:g failed: .*no such table/);
    await expect(store.set('grants', 'g', 'v')).rejects.toThrow(StoreError);
    await expect(store.delete('grants', 'g')).rejects.toThrow(StoreError);
    await expect(store.claim('dedupe', 'd', 'v', 1_000)).rejects.toThrow(StoreError);
    await expect(store.compareAndSet('approvals', 'a', 'pending', { status: 'x' })).rejects.toThrow(StoreError);
    await expect(store.list('grants', '')).rejects.toThrow(StoreError);
    expect(await store.ping()).toBe(true);
  });

  it('refuses to open a file that is not a database, or a folder it cannot create', async () => {
    const notDb = path.join(dir, 'notes.txt');
    await fs.writeFile(notDb, 'these are my notes, not a database '.repeat(100));
    await expect(createStore(`sqlite://${notDb}`)).rejects.toThrow(/cannot open the sqlite store .*notes\.txt/);
    await expect(createStore(`sqlite://${path.join(notDb, 'inside', 'x.sqlite')}`)).rejects.toThrow(
      /cannot create the folder of the sqlite store/,
    );
  });
});
