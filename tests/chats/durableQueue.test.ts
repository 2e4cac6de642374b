import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurableQueue } from '../../src/chats/durableQueue.ts';
import type { InboxItem } from '../../src/chats/inbox.ts';
import { Inbox } from '../../src/chats/inbox.ts';
import { silentLogger } from '../../src/ops/log.ts';
import type { IncomingMessage } from '../../src/platform/port.ts';
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

/** Instances the tests declare alive; any other holder counts as gone (its liveness record lapsed). */
const alive = new Set<string>();

function queue(store: Store, run: (item: InboxItem) => Promise<'done' | 'retry'>): DurableQueue {
  const instanceId = `instance-${randomUUID().slice(0, 8)}`;
  alive.add(instanceId);
  const q = new DurableQueue(store, run, { instanceId, isAlive: async (id) => alive.has(id) }, silentLogger(), FAST);
  cleanups.push(() => q.stop(1000));
  return q;
}

describe('the durable queue', () => {
  it('answers every message of a chat in order, one at a time, and empties the inbox', async () => {
    const store = await open('memory://');
    const rec = recorder();
    const q = queue(store, rec.run);
    for (const text of ['1', '2', '3', '4']) await q.accept(message('a', text), []);
    await q.accept(message('b', 'x'), []);
    await until(() => rec.ran.length === 5, 'five answers');
    expect(rec.ran.filter((entry) => entry.startsWith('a:'))).toEqual(['a:1', 'a:2', 'a:3', 'a:4']);
    expect(rec.overlaps()).toBe(0);
    expect(await new Inbox(store).chatsWaiting()).toEqual([]);
    expect(await store.inboxSize()).toBe(0);
    // A chat is forgotten once its inbox is empty: many quiet chats cost nothing here.
    await until(() => q.active === 0 && q.leased === 0, 'the chats to be let go');
  });

  it('answers messages left in the inbox by a restart', async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    const before = await open(url);
    await new Inbox(before).accept(message('a', 'left over'), []);
    const rec = recorder();
    queue(await open(url), rec.run).start();
    await until(() => rec.ran.length === 1, 'the left-over message');
    expect(rec.ran).toEqual(['a:left over']);
  });

  it("takes over a dead instance's chat at the next sweep, long before its lease would lapse", async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    const store = await open(url);
    // Held by an instance whose liveness is gone; the lease itself would stand for an hour.
    await store.claim('leases', 'chat:terminal:local/a', { status: 'token-of-the-dead', at: Date.now(), instanceId: 'dead-instance' }, 3_600_000);
    await new Inbox(store).accept(message('a', 'orphan'), []);
    const rec = recorder();
    queue(await open(url), rec.run).start();
    await until(() => rec.ran.length === 1, 'the orphaned message');
    expect(rec.ran).toEqual(['a:orphan']);
  });

  it('takes back a lease left in its own name when releasing it failed (the store was away), without waiting for it to lapse', async () => {
    const store = await open('memory://');
    alive.add('this-instance');
    // What a release that never reached the store leaves: our own lease, standing for an hour.
    await store.claim('leases', 'chat:terminal:local/a', { status: 'unreleased-token', at: Date.now(), instanceId: 'this-instance' }, 3_600_000);
    const rec = recorder();
    const q = new DurableQueue(store, rec.run, { instanceId: 'this-instance', isAlive: async (id) => alive.has(id) }, silentLogger(), FAST);
    cleanups.push(() => q.stop(1000));
    q.start();
    await q.accept(message('a', 'after the outage'), []);
    await until(() => rec.ran.length === 1, 'the message behind our own stale lease', 2_000);
    expect(await store.inboxSize()).toBe(0);
  });

  it('leaves a chat to its holder while that holder is alive, and takes it over once it is gone', async () => {
    const url = `sqlite://${join(dir, 'q.sqlite')}`;
    const store = await open(url);
    alive.add('busy-instance');
    await store.claim('leases', 'chat:terminal:local/a', { status: 'its-token', at: Date.now(), instanceId: 'busy-instance' }, 3_600_000);
    await new Inbox(store).accept(message('a', 'wait for it'), []);
    const rec = recorder();
    queue(await open(url), rec.run).start();
    // Several sweeps pass (every 50 ms here): the live holder keeps the chat.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(rec.ran).toEqual([]);
    alive.delete('busy-instance');
    await until(() => rec.ran.length === 1, 'the take-over');
    expect(rec.ran).toEqual(['a:wait for it']);
  });

  it('accepts a delivery once: a redelivery sharing any key is a duplicate and queues nothing', async () => {
    const store = await open('memory://');
    const inbox = new Inbox(store);
    expect((await inbox.accept(message('a', 'hello'), ['event:1', 'message:a:1'])).outcome).toBe('queued');
    expect((await inbox.accept(message('a', 'hello'), ['event:2', 'message:a:1'])).outcome).toBe('duplicate');
    expect((await inbox.accept(undefined, ['event:1'])).outcome).toBe('duplicate');
    // The duplicate claimed nothing either: its own new key is still free.
    expect((await inbox.accept(undefined, ['event:2'])).outcome).toBe('queued');
    expect(await store.inboxSize()).toBe(1);
    expect((await inbox.next('terminal:local/a'))?.message.text).toBe('hello');
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
    await first.accept(message('a', 'slow'), []);
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
        await queues[(i % 5) % 2]!.accept(message(chat, String(i)), []);
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
    await first.accept(message('a', 'slow'), []);
    await until(() => started, 'the first turn to start');
    await first.stop(20);
    expect(first.handedOverChats).toBe(true);
    release();
    await until(() => first.active === 0, 'the first turn to end');
    // The late finish did not remove the message: it is still waiting for its answer.
    expect((await new Inbox(await open(url)).next('terminal:local/a'))?.message.text).toBe('slow');
  });
});
