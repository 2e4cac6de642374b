import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurableQueue } from '../../src/chats/durableQueue.ts';
import type { InboxItem } from '../../src/chats/inbox.ts';
import { Inbox } from '../../src/chats/inbox.ts';
import { silentLogger } from '../../src/log.ts';
import type { IncomingMessage } from '../../src/platform.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) throw new Error('CI=true needs REDIS_URL for the Redis queue tests.');

const FAST = { lease: { ttlMs: 400, heartbeatMs: 100 }, sweepMs: 50 };
const message = (chat: string, text: string): IncomingMessage => ({ worldId: 'terminal:local', chatId: `terminal:local/${chat}`, userId: 'U', text });
const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** A runner that records which messages ran, and proves no chat ever ran two turns at once. */
function recorder(delayMs = 5) {
  const ran: string[] = [];
  const running = new Set<string>();
  let overlaps = 0;
  const run = async (item: InboxItem) => {
    if (running.has(item.message.chatId)) overlaps++;
    running.add(item.message.chatId);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    running.delete(item.message.chatId);
    ran.push(`${item.message.chatId.split('/')[1]}:${item.message.text}`);
    return 'done' as const;
  };
  return { ran, run, overlaps: () => overlaps };
}

let dir: string;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-dq-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function open(url: string): Promise<Store> {
  const store = await createStore(url, { keyPrefix: url.startsWith('redis') ? `test-${randomUUID()}:` : undefined });
  cleanups.push(() => store.close());
  return store;
}

function queue(store: Store, run: (item: InboxItem) => Promise<'done' | 'retry'>): DurableQueue {
  const q = new DurableQueue(store, run, silentLogger(), FAST);
  cleanups.push(() => q.stop(1000));
  return q;
}

describe('the durable queue', () => {
  it('answers every message of a chat in order, one at a time, and empties the inbox', async () => {
    const store = await open('memory://');
    const rec = recorder();
    const q = queue(store, rec.run);
    for (const text of ['1', '2', '3', '4']) await q.submit(message('a', text));
    await q.submit(message('b', 'x'));
    await until(() => rec.ran.length === 5, 'five answers');
    expect(rec.ran.filter((entry) => entry.startsWith('a:'))).toEqual(['a:1', 'a:2', 'a:3', 'a:4']);
    expect(rec.overlaps()).toBe(0);
    expect(await new Inbox(store).chatsWaiting()).toEqual([]);
  });

  it('answers messages left in the inbox by a restart', async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    const before = await open(url);
    await new Inbox(before).put(message('a', 'left over'));
    const rec = recorder();
    queue(await open(url), rec.run).start();
    await until(() => rec.ran.length === 1, 'the left-over message');
    expect(rec.ran).toEqual(['a:left over']);
  });

  it("takes over a dead instance's chat once its lease expires", async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    const store = await open(url);
    // A holder that died: its lease is never renewed, its messages never answered.
    await store.claim('leases', 'chat:terminal:local/a', { status: 'dead-instance' }, 300);
    await new Inbox(store).put(message('a', 'orphan'));
    const rec = recorder();
    const q = queue(await open(url), rec.run);
    q.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rec.ran).toEqual([]);
    await until(() => rec.ran.length === 1, 'the orphaned message');
  });

  it('hands a chat over on stop: a turn past the deadline is picked up elsewhere', async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    let release: () => void = () => {};
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = queue(await open(url), async () => {
      await stuck;
      return 'done';
    });
    await first.submit(message('a', 'slow'));
    await until(() => first.active === 1, 'the first instance to start');
    await first.stop(50);
    const rec = recorder();
    queue(await open(url), rec.run).start();
    await until(() => rec.ran.length === 1, 'the other instance');
    expect(rec.ran).toEqual(['a:slow']);
    release();
  });

  for (const backend of ['sqlite', ...(process.env.REDIS_URL ? ['redis'] : [])]) {
    it(`serialises each chat across two instances on ${backend}, answering every message exactly once`, async () => {
      const url = backend === 'redis' ? process.env.REDIS_URL! : `sqlite://${join(dir, 'shared.sqlite')}`;
      const prefix = `test-${randomUUID()}:`;
      const stores = [
        await createStore(url, { keyPrefix: backend === 'redis' ? prefix : undefined }),
        await createStore(url, { keyPrefix: backend === 'redis' ? prefix : undefined }),
      ];
      cleanups.push(async () => {
        for (const store of stores) await store.close();
      });
      const { ran, run, overlaps } = recorder(2);
      const queues = stores.map((store) => queue(store, run));
      for (const q of queues) q.start();
      const sent: string[] = [];
      for (let i = 0; i < 40; i++) {
        const chat = `c${i % 5}`;
        sent.push(`${chat}:${i}`);
        // A chat's messages enter through one instance (order within a millisecond is per process); any instance answers.
        await queues[(i % 5) % 2]!.submit(message(chat, String(i)));
      }
      await until(() => ran.length >= 40, 'forty answers', 20_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect([...ran].sort()).toEqual([...sent].sort());
      expect(overlaps()).toBe(0);
      for (let c = 0; c < 5; c++) {
        const order = ran.filter((entry) => entry.startsWith(`c${c}:`)).map((entry) => Number(entry.split(':')[1]));
        expect(order).toEqual([...order].sort((x, y) => x - y));
      }
    });
  }
});

describe('hand-over at shutdown', () => {
  it('keeps a message whose turn outlived the deadline, so the next instance answers it', async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    let release: () => void = () => {};
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    const first = queue(await open(url), async () => {
      started = true;
      await stuck;
      return 'done';
    });
    await first.submit(message('a', 'slow'));
    await until(() => started, 'the first turn to start');
    await first.stop(20);
    expect(first.handedOverChats).toBe(true);
    release();
    await until(() => first.active === 0, 'the first turn to end');
    // The late finish did not remove the message: it is still waiting for its answer.
    expect((await new Inbox(await open(url)).pending('terminal:local/a')).map((item) => item.message.text)).toEqual(['slow']);
  });
});
