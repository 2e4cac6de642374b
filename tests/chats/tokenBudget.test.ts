// A world's daily token budget counted by two bot instances at once: every turn's tokens count (issue 34's loose
// end: adding was read-then-write, so two instances finishing turns together lost one of them).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenBudgets } from '../../src/chats/tokenBudget.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

const REDIS_URL = process.env.REDIS_URL;
if (process.env.CI === 'true' && !REDIS_URL) throw new Error('REDIS_URL must be set under CI: the shared budget test needs a server');

/** Redis database 13 (this test's own), on the server REDIS_URL names. */
function redisDb13(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = '/13';
  return parsed.toString();
}

const TURNS = 40;
const turn = { input: 1000, output: 200, cacheRead: 50, cacheCreation: 7 };
const PER_TURN = 1257;

describe('a daily token budget on two instances', () => {
  const opened: Store[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(async (store) => store.close()));
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function twoInstances(url: string, keyPrefix?: string): Promise<[TokenBudgets, TokenBudgets]> {
    const stores = await Promise.all([createStore(url, keyPrefix === undefined ? {} : { keyPrefix }), createStore(url, keyPrefix === undefined ? {} : { keyPrefix })]);
    opened.push(...stores);
    return [new TokenBudgets(stores[0]), new TokenBudgets(stores[1])];
  }

  async function addAtOnce([a, b]: [TokenBudgets, TokenBudgets]): Promise<void> {
    await Promise.all(Array.from({ length: TURNS }, async (_unused, index) => (index % 2 === 0 ? a : b).add('slack:T1:C1', turn)));
  }

  it('SQLite (one file): every turn both finish at once counts, and the budget closes on the true total', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-budget-'));
    cleanups.push(async () => fs.rm(dir, { recursive: true, force: true }));
    const budgets = await twoInstances(`sqlite://${path.join(dir, 'store.sqlite')}`);
    await addAtOnce(budgets);
    expect(await budgets[1].spentToday('slack:T1:C1')).toBe(TURNS * PER_TURN);
    expect(await budgets[0].allows('slack:T1:C1', TURNS * PER_TURN)).toBe(false);
    expect(await budgets[0].allows('slack:T1:C1', TURNS * PER_TURN + 1)).toBe(true);
    expect(await budgets[0].spentToday('slack:T1:C2')).toBe(0); // another world spent nothing
  });

  describe.runIf(REDIS_URL)('Redis', () => {
    it('every turn both finish at once counts', async () => {
      const url = redisDb13(REDIS_URL ?? '');
      const keyPrefix = `skillbot-test:${randomUUID()}:`;
      cleanups.push(async () => {
        const client = createClient({ url });
        await client.connect();
        try {
          const keys = await client.keys(`${keyPrefix}*`);
          if (keys.length > 0) await client.del(keys);
        } finally {
          client.destroy();
        }
      });
      const budgets = await twoInstances(url, keyPrefix);
      await addAtOnce(budgets);
      expect(await budgets[0].spentToday('slack:T1:C1')).toBe(TURNS * PER_TURN);
    });
  });
});
