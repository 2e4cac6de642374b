// Two bot instances on one Redis (DB 9) write the same person's sign-in at once: a refresh on one while the other
// confirms, two people signing in to one server: nothing either wrote is lost (the vault's compare-and-set), and a
// sign-in completed on one instance wakes the turn waiting on the other (the store's pub/sub), without polling.
import { randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { SignIns } from '../../src/mcp/signIn.ts';
import { TokenVault } from '../../src/mcp/tokenVault.ts';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
redisUrl.pathname = '/9';
const REDIS = redisUrl.toString();
const stateKey = randomBytes(32);
const prefix = `skillbot-test-mcpvault:${randomUUID()}:`;
let one: Store;
let two: Store;

beforeAll(async () => {
  one = await createStore(REDIS, { keyPrefix: prefix });
  two = await createStore(REDIS, { keyPrefix: prefix });
});

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  const client = createClient({ url: REDIS });
  await client.connect();
  try {
    let cursor = '0';
    do {
      const reply = await client.scan(cursor, { MATCH: `${prefix}*`, COUNT: 1_000 });
      cursor = String(reply.cursor);
      if (reply.keys.length > 0) await client.del(reply.keys);
    } while (cursor !== '0');
  } finally {
    client.destroy();
  }
});

const tokens = (access: string) => ({ access_token: access, token_type: 'Bearer' });

describe('the MCP token vault on two instances', () => {
  it('keeps both writes when two instances change one record at the same moment', async () => {
    const a = new TokenVault(one, stateKey);
    const b = new TokenVault(two, stateKey);
    await a.updatePerson('tracker', 'UA', () => ({ codeVerifier: 'v0' }));
    // Twenty rounds of: instance A saves refreshed tokens while instance B saves a new verifier.
    for (let round = 1; round <= 20; round++) {
      await Promise.all([
        a.updatePerson('tracker', 'UA', (record) => ({ ...record, tokens: tokens(`access-${round}`) })),
        b.updatePerson('tracker', 'UA', (record) => ({ ...record, codeVerifier: `v${round}` })),
      ]);
      const record = await a.person('tracker', 'UA');
      expect(record.tokens?.access_token).toBe(`access-${round}`);
      expect(record.codeVerifier).toBe(`v${round}`);
    }
  });

  it('lists every person when people sign in on both instances at once', async () => {
    const a = new TokenVault(one, stateKey);
    const b = new TokenVault(two, stateKey);
    await Promise.all([
      a.updatePerson('listed', 'UA', () => ({ tokens: tokens('a') })),
      b.updatePerson('listed', 'UB', () => ({ tokens: tokens('b') })),
      a.updatePerson('listed', 'UC', () => ({ tokens: tokens('c') })),
    ]);
    expect((await b.people('listed')).sort()).toEqual(['UA', 'UB', 'UC']);
    await Promise.all(['UA', 'UB', 'UC'].map((id) => a.forget('listed', id)));
    expect(await b.people('listed')).toEqual([]);
  });

  it('wakes the turn waiting on one instance when the sign-in is held on the other', async () => {
    const servers = [{ name: 'tracker', type: 'http' as const, url: 'http://127.0.0.1:9/mcp', headers: {} }];
    const waiting = new SignIns(servers as never, new TokenVault(one, stateKey), 'http://localhost:3000', silentLogger());
    const holding = new TokenVault(two, stateKey);
    const started = Date.now();
    const woke = waiting.waitFor('tracker', 'UC', 20_000, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await holding.updatePerson('tracker', 'UC', (record) => ({ ...record, pending: { tokens: tokens('c'), code: '123-456', account: 'carol' } }));
    await holding.announceSignIn('tracker', 'UC');
    expect(await woke).toBe(true);
    // Woken by the message, well before the next second of a poll would have come round.
    expect(Date.now() - started).toBeLessThan(900);
    expect(await waiting.held('tracker', 'UC')).toEqual({ code: '123-456', account: 'carol' });
  });

  it('gives up at the timeout when no sign-in comes', async () => {
    const servers = [{ name: 'tracker', type: 'http' as const, url: 'http://127.0.0.1:9/mcp', headers: {} }];
    const waiting = new SignIns(servers as never, new TokenVault(one, stateKey), 'http://localhost:3000', silentLogger());
    expect(await waiting.waitFor('tracker', 'UB', 300, new AbortController().signal)).toBe(false);
  });
});
