// Every statement on a per-turn or periodic path is served by an index (the key, or expiry for the purge): none reads the whole table.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/createStore.ts';
import { INDEXED_STATEMENTS } from '../../src/store/sqliteSql.ts';

let dir: string;
let db: sqlite3.Database;

function plan(sql: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    db.all(`EXPLAIN QUERY PLAN ${sql}`, (error: Error | null, rows: Array<{ detail: string }>) => (error ? reject(error) : resolve(rows.map((row) => row.detail))));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-plans-'));
  const file = join(dir, 'plans.sqlite');
  // The store creates the table exactly as it runs in production.
  const store = await createStore(`sqlite://${file}`);
  await store.set('grants', 'k', 'v');
  await store.close();
  db = new sqlite3.Database(file);
});

afterAll(async () => {
  await new Promise<void>((resolve) => db.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe('sqlite query plans', () => {
  for (const [name, sql] of Object.entries(INDEXED_STATEMENTS)) {
    it(`${name}: searches the keyv table by an index, never scans it`, async () => {
      const steps = await plan(sql);
      const onTable = steps.filter((step) => /\bkeyv\b/.test(step));
      expect(onTable.length, `plan of ${name}: ${steps.join(' | ')}`).toBeGreaterThan(0);
      for (const step of onTable) expect(step, `plan of ${name}`).toMatch(/^SEARCH keyv USING (COVERING )?INDEX (sqlite_autoindex_keyv_1 \(key|keyv_expires \(<expr>)/);
    });
  }
});
