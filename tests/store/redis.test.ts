import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createStore, StoreError } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { describePubSubContract } from './pubSubContract.ts';
import { describeStoreContract, type BackendUnderTest } from './storeContract.ts';

const REDIS_URL = process.env.REDIS_URL;
if (process.env.CI === 'true' && !REDIS_URL) throw new Error('REDIS_URL must be set under CI: the redis store tests need a server');

/** Every key this run writes starts with this; afterAll deletes them. */
const runPrefix = `skillbot-test:${randomUUID()}:`;
let testCount = 0;

async function deleteRunKeys(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    let cursor = '0';
    do {
      const reply = await client.scan(cursor, { MATCH: `${runPrefix}*`, COUNT: 1_000 });
      cursor = String(reply.cursor);
      if (reply.keys.length > 0) await client.del(reply.keys);
    } while (cursor !== '0');
  } finally {
    client.destroy();
  }
}

describe('redis store without a server', () => {
  it('fails to start with an error naming the address, within the connect timeout', async () => {
    await expect(createStore('redis://127.0.0.1:1', { connectTimeoutMs: 300 })).rejects.toThrow(
      /cannot reach redis at 127\.0\.0\.1:1/,
    );
  });
});

describe.runIf(REDIS_URL)('redis store', () => {
  const url = REDIS_URL ?? '';

  afterAll(async () => {
    await deleteRunKeys(url);
  });

  /** Each test gets a key prefix of its own; the instances it opens share it. */
  async function freshPrefix(): Promise<BackendUnderTest> {
    const keyPrefix = `${runPrefix}${++testCount}:`;
    return { open: async () => createStore(url, { keyPrefix }), cleanup: async () => undefined };
  }

  describeStoreContract('redis://', freshPrefix, { shared: true });
  describePubSubContract('redis://', freshPrefix, { crossInstance: true });

  describe('publish/subscribe between bots', () => {
    const opened: Store[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map(async (store) => store.close()));
    });

    it('keeps bots with different key prefixes apart on one server', async () => {
      const mine = await createStore(url, { keyPrefix: `${runPrefix}bot-a:` });
      const theirs = await createStore(url, { keyPrefix: `${runPrefix}bot-b:` });
      opened.push(mine, theirs);
      const heardByMine: string[] = [];
      const heardByTheirs: string[] = [];
      await mine.subscribe('approvals', (message) => void heardByMine.push(message));
      await theirs.subscribe('approvals', (message) => void heardByTheirs.push(message));
      await theirs.publish('approvals', 'for bot b');
      await mine.publish('approvals', 'for bot a');
      await vi.waitFor(() => expect(heardByMine).toEqual(['for bot a']), { timeout: 5_000 });
      await vi.waitFor(() => expect(heardByTheirs).toEqual(['for bot b']), { timeout: 5_000 });
    });
  });

  describe('when the server goes away mid-run', () => {
    const opened: Store[] = [];
    const sockets = new Set<net.Socket>();
    let proxy: net.Server | undefined;

    /** A TCP relay in front of the real server, so a test can cut the connection and bring it back. */
    async function startProxy(port = 0): Promise<number> {
      const target = new URL(url);
      proxy = net.createServer((inbound) => {
        const outbound = net.connect(Number(target.port || 6379), target.hostname);
        for (const socket of [inbound, outbound]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => sockets.delete(socket));
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      await new Promise<void>((resolve) => proxy!.listen(port, '127.0.0.1', resolve));
      return (proxy.address() as net.AddressInfo).port;
    }
    async function stopProxy(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
      proxy = undefined;
    }

    afterEach(async () => {
      await Promise.all(opened.splice(0).map(async (store) => store.close()));
      await stopProxy();
    });

    it('throws on every operation while it is away, and works again once it is back', async () => {
      const port = await startProxy();
      const store = await createStore(`redis://127.0.0.1:${port}`, { keyPrefix: `${runPrefix}outage:` });
      opened.push(store);
      await store.set('grants', 'g', { status: 'granted' });
      expect(await store.get('grants', 'g')).toEqual({ status: 'granted' });

      await stopProxy();
      await expect(store.get('grants', 'g')).rejects.toThrow(StoreError);
      await expect(store.set('grants', 'g', 'v')).rejects.toThrow(StoreError);
      await expect(store.delete('grants', 'g')).rejects.toThrow(StoreError);
      await expect(store.claim('dedupe', 'd', 'v', 60_000)).rejects.toThrow(StoreError);
      await expect(store.compareAndSet('approvals', 'a', 'pending', { status: 'x' })).rejects.toThrow(StoreError);
      await expect(store.list('grants', '')).rejects.toThrow(StoreError);
      expect(await store.ping()).toBe(false);

      await startProxy(port);
      const deadline = Date.now() + 15_000;
      while (!(await store.ping()) && Date.now() < deadline) await sleep(100);
      expect(await store.get('grants', 'g')).toEqual({ status: 'granted' });
    });

    it('a subscription hears messages again once the server is back, and publish fails while it is away', async () => {
      const port = await startProxy();
      const keyPrefix = `${runPrefix}outage-pubsub:`;
      const listener = await createStore(`redis://127.0.0.1:${port}`, { keyPrefix });
      const publisher = await createStore(url, { keyPrefix });
      opened.push(listener, publisher);
      const heard: string[] = [];
      await listener.subscribe('approvals', (message) => void heard.push(message));
      await publisher.publish('approvals', 'before');
      await vi.waitFor(() => expect(heard).toEqual(['before']), { timeout: 5_000 });

      await stopProxy();
      await expect(listener.publish('approvals', 'lost')).rejects.toThrow(StoreError);
      await startProxy(port);
      // The client subscribes again by itself after reconnecting; until then a message is simply missed.
      const deadline = Date.now() + 15_000;
      while (!heard.includes('after') && Date.now() < deadline) {
        await publisher.publish('approvals', 'after');
        await sleep(100);
      }
      expect(heard).toContain('after');
      expect(heard).not.toContain('lost');
    });
  });
});
