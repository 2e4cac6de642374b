// The behaviour every Store backend must show, run against memory, sqlite and redis.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

export interface BackendUnderTest {
  /** A new instance on this test's data (sqlite: the same file; redis: the same key prefix). */
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

interface Approval {
  status: string;
  decidedBy?: string;
  items?: unknown[];
}

const HOUR = 3_600_000;

/**
 * `shared`: two instances see the same data (sqlite on one file, redis on one server), so the multi-instance
 * cases apply; memory is per process.
 */
export function describeStoreContract(
  name: string,
  makeBackend: () => Promise<BackendUnderTest>,
  { shared }: { shared: boolean },
): void {
  describe(`Store contract: ${name}`, () => {
    let backend: BackendUnderTest;
    let store: Store;
    const opened: Store[] = [];

    async function open(): Promise<Store> {
      const next = await backend.open();
      opened.push(next);
      return next;
    }

    beforeEach(async () => {
      backend = await makeBackend();
      store = await open();
    });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map(async (each) => each.close()));
      await backend.cleanup();
    });

    it('gets what was set, as a copy, and nothing after delete', async () => {
      const value = { text: ':starts with a colon', list: [1, 'two', { three: [] }], nested: { ok: true }, none: null };
      await store.set('history', 'chat-1', value);
      const read = await store.get<typeof value>('history', 'chat-1');
      expect(read).toEqual(value);
      read!.list.push('mutated');
      expect(await store.get('history', 'chat-1')).toEqual(value);
      await store.set('history', 'chat-1', 'replaced');
      expect(await store.get('history', 'chat-1')).toBe('replaced');
      await store.delete('history', 'chat-1');
      expect(await store.get('history', 'chat-1')).toBeUndefined();
      await store.delete('history', 'never-there');
    });

    it('keeps namespaces apart', async () => {
      await store.set('grants', 'k', 'grant');
      await store.set('approvals', 'k', 'approval');
      expect(await store.get('grants', 'k')).toBe('grant');
      expect(await store.get('approvals', 'k')).toBe('approval');
      expect(await store.get('dedupe', 'k')).toBeUndefined();
    });

    it('forgets a record once its TTL has passed, and keeps one without TTL', async () => {
      await store.set('grants', 'short', { status: 'granted' }, 250);
      await store.set('grants', 'long', 'long', HOUR);
      await store.set('grants', 'forever', 'forever');
      expect(await store.get('grants', 'short')).toEqual({ status: 'granted' });
      await sleep(400);
      expect(await store.get('grants', 'short')).toBeUndefined();
      expect(await store.get('grants', 'long')).toBe('long');
      expect(await store.get('grants', 'forever')).toBe('forever');
      expect(await store.list('grants', '')).toEqual([
        { key: 'forever', value: 'forever' },
        { key: 'long', value: 'long' },
      ]);
    });

    it('refuses a TTL that is not positive, and an undefined value', async () => {
      await expect(store.set('grants', 'k', 1, 0)).rejects.toThrow(RangeError);
      await expect(store.claim('dedupe', 'k', 1, -5)).rejects.toThrow(RangeError);
      await expect(store.set('grants', 'k', undefined)).rejects.toThrow(TypeError);
    });

    it('claim: of 50 concurrent callers exactly one wins', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_unused, index) => store.claim('dedupe', 'event-1', { by: index }, HOUR)),
      );
      const winners = results.flatMap((won, index) => (won ? [index] : []));
      expect(winners).toHaveLength(1);
      expect(await store.get('dedupe', 'event-1')).toEqual({ by: winners[0] });
      expect(await store.claim('dedupe', 'event-1', { by: 'late' }, HOUR)).toBe(false);
      expect(await store.claim('dedupe', 'event-2', { by: 'other key' }, HOUR)).toBe(true);
    });

    it('claim: a key held by set() is not claimable, an expired one is', async () => {
      await store.set('dedupe', 'held', 'held');
      expect(await store.claim('dedupe', 'held', 'mine', HOUR)).toBe(false);
      expect(await store.get('dedupe', 'held')).toBe('held');
      expect(await store.claim('dedupe', 'lease', 'first', 40)).toBe(true);
      await sleep(150);
      expect(await store.claim('dedupe', 'lease', 'second', HOUR)).toBe(true);
      expect(await store.get('dedupe', 'lease')).toBe('second');
      expect(await store.claim('dedupe', 'lease', 'third', HOUR)).toBe(false);
    });

    it('compareAndSet: of 50 concurrent callers exactly one moves pending to resolved', async () => {
      await store.set('approvals', 'a1', { status: 'pending' } satisfies Approval, HOUR);
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_unused, index) =>
          store.compareAndSet('approvals', 'a1', 'pending', { status: 'resolved', decidedBy: `user-${index}` }),
        ),
      );
      const winners = results.flatMap((won, index) => (won ? [index] : []));
      expect(winners).toHaveLength(1);
      expect(await store.get<Approval>('approvals', 'a1')).toEqual({ status: 'resolved', decidedBy: `user-${winners[0]}` });
    });

    it('compareAndSet: refuses a wrong status, a missing record and an expired one, changing nothing', async () => {
      await store.set('approvals', 'a1', { status: 'resolved', decidedBy: 'ann' });
      expect(await store.compareAndSet('approvals', 'a1', 'pending', { status: 'resolved', decidedBy: 'bob' })).toBe(false);
      expect(await store.get('approvals', 'a1')).toEqual({ status: 'resolved', decidedBy: 'ann' });
      expect(await store.compareAndSet('approvals', 'missing', 'pending', { status: 'resolved' })).toBe(false);
      expect(await store.get('approvals', 'missing')).toBeUndefined();
      await store.set('approvals', 'plain', 'not a record');
      expect(await store.compareAndSet('approvals', 'plain', 'pending', { status: 'resolved' })).toBe(false);
      await store.set('approvals', 'old', { status: 'pending' }, 40);
      await sleep(150);
      expect(await store.compareAndSet('approvals', 'old', 'pending', { status: 'resolved' })).toBe(false);
      expect(await store.get('approvals', 'old')).toBeUndefined();
    });

    it('compareAndSet: keeps the expiry without a TTL, takes a new one with it, and stores the value exactly', async () => {
      await store.set('approvals', 'keep', { status: 'pending' }, 1_000);
      const next = { status: 'resolved', items: [], nested: { empty: [], text: ':colon' } };
      expect(await store.compareAndSet('approvals', 'keep', 'pending', next)).toBe(true);
      expect(await store.get('approvals', 'keep')).toEqual(next);
      await store.set('approvals', 'renew', { status: 'pending' });
      expect(await store.compareAndSet('approvals', 'renew', 'pending', { status: 'resolved' }, 40)).toBe(true);
      await store.set('approvals', 'forever', { status: 'pending' });
      expect(await store.compareAndSet('approvals', 'forever', 'pending', { status: 'resolved' })).toBe(true);
      await sleep(1_200);
      expect(await store.get('approvals', 'keep')).toBeUndefined();
      expect(await store.get('approvals', 'renew')).toBeUndefined();
      expect(await store.get('approvals', 'forever')).toEqual({ status: 'resolved' });
    });

    it('list: live records whose key starts with the prefix, sorted by key, wildcards taken literally', async () => {
      await store.set('grants', 'w1/c2/skill', 3);
      await store.set('grants', 'w1/c1/skill', 1);
      await store.set('grants', 'w1/c1/other', 2);
      await store.set('grants', 'W1/c1/upper', 'case differs');
      await store.set('grants', 'w10/c1/skill', 'longer world');
      await store.set('grants', 'w1/gone', 'expires', 40);
      await store.set('approvals', 'w1/c1/skill', 'other namespace');
      await store.set('grants', 'x*[a]%_/1', 'odd');
      await store.set('grants', 'xyz', 'not odd');
      await sleep(150);
      expect(await store.list('grants', 'w1/')).toEqual([
        { key: 'w1/c1/other', value: 2 },
        { key: 'w1/c1/skill', value: 1 },
        { key: 'w1/c2/skill', value: 3 },
      ]);
      expect(await store.list('grants', 'x*[a]%_')).toEqual([{ key: 'x*[a]%_/1', value: 'odd' }]);
      expect(await store.list('grants', 'x_')).toEqual([]);
      expect((await store.list('grants', '')).map((entry) => entry.key)).toEqual([
        'W1/c1/upper',
        'w1/c1/other',
        'w1/c1/skill',
        'w1/c2/skill',
        'w10/c1/skill',
        'x*[a]%_/1',
        'xyz',
      ]);
      expect(await store.list('audit', '')).toEqual([]);
    });

    it('accept: claims the keys and queues the message in one step; a delivery sharing a key changes nothing', async () => {
      const item = (id: string, at: number) => ({ id, at, value: { text: `message ${id}`, list: [] } });
      expect(await store.accept(['event:1', 'ts:1'], HOUR, { chatId: 'w/c1', item: item('b', 2) })).toBe('queued');
      expect(await store.accept(['event:2', 'ts:1'], HOUR, { chatId: 'w/c1', item: item('c', 3) })).toBe('duplicate');
      expect(await store.accept(['event:2'], HOUR)).toBe('queued');
      expect(await store.accept(['event:2'], HOUR)).toBe('duplicate');
      expect(await store.accept([], HOUR, { chatId: 'w/c1', item: item('a', 1) })).toBe('queued');
      expect(await store.accept([], HOUR, { chatId: 'w/c2', item: item('z', 5) })).toBe('queued');
      expect(await store.inboxHead('w/c1', 10)).toEqual([item('a', 1), item('b', 2)]);
      expect(await store.inboxHead('w/c1', 1)).toEqual([item('a', 1)]);
      expect(await store.inboxHead('w/none', 10)).toEqual([]);
      expect(await store.inboxSize()).toBe(3);
      const byChat = (rows: Array<{ chatId: string; oldestAt: number }>) => [...rows].sort((x, y) => (x.chatId < y.chatId ? -1 : 1));
      expect(byChat(await store.inboxChats())).toEqual([
        { chatId: 'w/c1', oldestAt: 1 },
        { chatId: 'w/c2', oldestAt: 5 },
      ]);
      await store.inboxRemove('w/c1', 'a');
      expect(byChat(await store.inboxChats())).toEqual([
        { chatId: 'w/c1', oldestAt: 2 },
        { chatId: 'w/c2', oldestAt: 5 },
      ]);
      await store.inboxRemove('w/c1', 'b');
      await store.inboxRemove('w/c1', 'b');
      expect(await store.inboxChats()).toEqual([{ chatId: 'w/c2', oldestAt: 5 }]);
      expect(await store.inboxSize()).toBe(1);
    });

    it('accept: of 50 concurrent deliveries of one message exactly one is queued', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, index) =>
          store.accept([`event:${index}`, 'message:same'], HOUR, { chatId: 'w/c', item: { id: `i${String(index).padStart(2, '0')}`, at: index, value: index } }),
        ),
      );
      expect(results.filter((result) => result === 'queued')).toHaveLength(1);
      expect(await store.inboxHead('w/c', 100)).toHaveLength(1);
      expect(await store.inboxSize()).toBe(1);
    });

    it('accept: a claim whose time to live passed is free again', async () => {
      expect(await store.accept(['event:short'], 40)).toBe('queued');
      await sleep(150);
      expect(await store.accept(['event:short'], HOUR, { chatId: 'w/c', item: { id: 'x', at: 1, value: 'again' } })).toBe('queued');
      expect(await store.inboxSize()).toBe(1);
    });

    it('release: deletes only a live record holding the expected status (a lease released by its owner)', async () => {
      await store.set('leases', 'chat-1', { status: 'instance-a', since: 1 }, HOUR);
      expect(await store.release('leases', 'chat-1', 'instance-b')).toBe(false);
      expect(await store.get('leases', 'chat-1')).toEqual({ status: 'instance-a', since: 1 });
      expect(await store.release('leases', 'chat-1', 'instance-a')).toBe(true);
      expect(await store.get('leases', 'chat-1')).toBeUndefined();
      expect(await store.release('leases', 'chat-1', 'instance-a')).toBe(false);
      expect(await store.release('leases', 'never-there', 'instance-a')).toBe(false);
      await store.set('leases', 'plain', 'instance-a');
      expect(await store.release('leases', 'plain', 'instance-a')).toBe(false);
      expect(await store.get('leases', 'plain')).toBe('instance-a');
      await store.set('leases', 'lapsed', { status: 'instance-a' }, 40);
      await sleep(150);
      expect(await store.release('leases', 'lapsed', 'instance-a')).toBe(false);
      // A lapsed lease taken over by someone else is theirs: the old owner's release must not remove it.
      expect(await store.claim('leases', 'lapsed', { status: 'instance-b' }, HOUR)).toBe(true);
      expect(await store.release('leases', 'lapsed', 'instance-a')).toBe(false);
      expect(await store.get('leases', 'lapsed')).toEqual({ status: 'instance-b' });
    });

    it('release: of 50 concurrent callers exactly one deletes the record', async () => {
      await store.set('leases', 'chat-2', { status: 'instance-a' }, HOUR);
      const results = await Promise.all(Array.from({ length: 50 }, async () => store.release('leases', 'chat-2', 'instance-a')));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('increment: 50 concurrent adds lose nothing', async () => {
      const totals = await Promise.all(Array.from({ length: 50 }, async (_unused, index) => store.increment('usage', 'spend', index + 1, HOUR)));
      expect(Math.max(...totals)).toBe(1275);
      expect(new Set(totals).size).toBe(50); // each add saw its own total
      expect(await store.get('usage', 'spend')).toBe(1275);
    });

    it('increment: the first add sets the expiry, later ones keep it, and an expired total starts again', async () => {
      const started = Date.now();
      await store.increment('usage', 'spend', 2, 1_000);
      expect(await store.increment('usage', 'spend', 3, HOUR)).toBe(5);
      await sleep(Math.max(0, started + 1_300 - Date.now()));
      expect(await store.get('usage', 'spend')).toBeUndefined();
      expect(await store.increment('usage', 'spend', 7, HOUR)).toBe(7);
    });

    it('increment: a record that holds no number is replaced by the amount', async () => {
      await store.set('usage', 'odd', { status: 'x' }, HOUR);
      expect(await store.increment('usage', 'odd', 3, HOUR)).toBe(3);
      expect(await store.get('usage', 'odd')).toBe(3);
    });

    it('fails loudly once closed instead of answering "not found"', async () => {
      expect(await store.ping()).toBe(true);
      await store.set('grants', 'k', 'v');
      await store.close();
      expect(await store.ping()).toBe(false);
      await expect(store.get('grants', 'k')).rejects.toThrow(StoreError);
      await expect(store.set('grants', 'k', 'v')).rejects.toThrow(StoreError);
      await expect(store.delete('grants', 'k')).rejects.toThrow(StoreError);
      await expect(store.claim('dedupe', 'k', 'v', HOUR)).rejects.toThrow(StoreError);
      await expect(store.compareAndSet('approvals', 'k', 'pending', { status: 'x' })).rejects.toThrow(StoreError);
      await expect(store.list('grants', '')).rejects.toThrow(StoreError);
      await expect(store.release('leases', 'k', 'x')).rejects.toThrow(StoreError);
      await expect(store.increment('usage', 'k', 1, HOUR)).rejects.toThrow(StoreError);
      await expect(store.accept(['k'], HOUR)).rejects.toThrow(StoreError);
      await expect(store.inboxHead('w/c', 1)).rejects.toThrow(StoreError);
      await expect(store.inboxChats()).rejects.toThrow(StoreError);
      await expect(store.publish('approvals', 'x')).rejects.toThrow(StoreError);
      await expect(store.subscribe('approvals', () => undefined)).rejects.toThrow(StoreError);
    });

    if (shared) {
      describe('with two instances on the same data', () => {
        it('claim has one winner across both', async () => {
          const other = await open();
          const results = await Promise.all(
            Array.from({ length: 50 }, async (_unused, index) =>
              (index % 2 === 0 ? store : other).claim('dedupe', 'event-x', { by: index }, HOUR),
            ),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
        });

        it("compareAndSet has one winner across both, and each sees the other's writes", async () => {
          const other = await open();
          await store.set('approvals', 'a1', { status: 'pending' }, HOUR);
          expect(await other.get('approvals', 'a1')).toEqual({ status: 'pending' });
          const results = await Promise.all(
            Array.from({ length: 50 }, async (_unused, index) =>
              (index % 2 === 0 ? store : other).compareAndSet('approvals', 'a1', 'pending', {
                status: 'resolved',
                decidedBy: String(index),
              }),
            ),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
          expect((await store.get<Approval>('approvals', 'a1'))?.status).toBe('resolved');
          expect(await other.list('approvals', '')).toEqual(await store.list('approvals', ''));
        });

        it('accept has one winner across both, and both see the one queue', async () => {
          const other = await open();
          const results = await Promise.all(
            Array.from({ length: 20 }, async (_, index) =>
              (index % 2 === 0 ? store : other).accept(['message:shared'], HOUR, { chatId: 'w/c', item: { id: `i${index}`, at: index, value: index } }),
            ),
          );
          expect(results.filter((result) => result === 'queued')).toHaveLength(1);
          expect(await other.inboxSize()).toBe(1);
          const [head] = await store.inboxHead('w/c', 1);
          await other.inboxRemove('w/c', head!.id);
          expect(await store.inboxChats()).toEqual([]);
        });

        it('increment from both loses nothing', async () => {
          const other = await open();
          await Promise.all(Array.from({ length: 50 }, async (_unused, index) => (index % 2 === 0 ? store : other).increment('usage', 'shared', 2, HOUR)));
          expect(await other.get('usage', 'shared')).toBe(100);
        });

        it('release has one winner across both', async () => {
          const other = await open();
          await store.set('leases', 'chat-3', { status: 'instance-a' }, HOUR);
          const results = await Promise.all(
            Array.from({ length: 50 }, async (_unused, index) => (index % 2 === 0 ? store : other).release('leases', 'chat-3', 'instance-a')),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
          expect(await other.get('leases', 'chat-3')).toBeUndefined();
        });
      });
    }
  });
}
