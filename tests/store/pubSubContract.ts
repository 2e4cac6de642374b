// Publish/subscribe as every Store backend must offer it (memory, sqlite and redis).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import type { BackendUnderTest } from './storeContract.ts';

/** Collects what a subscription receives. */
function inbox(): { messages: string[]; handler: (message: string) => void } {
  const messages: string[] = [];
  return { messages, handler: (message) => void messages.push(message) };
}

/**
 * `crossInstance`: two store objects on the same data hear each other (redis). sqlite and memory deliver to
 * the subscribers of the publishing object only.
 */
export function describePubSubContract(
  name: string,
  makeBackend: () => Promise<BackendUnderTest>,
  { crossInstance }: { crossInstance: boolean },
): void {
  describe(`Store publish/subscribe: ${name}`, () => {
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

    it('delivers every message, in order, to each subscriber of its channel and to no other channel', async () => {
      const first = inbox();
      const second = inbox();
      const elsewhere = inbox();
      await store.subscribe('approvals', first.handler);
      await store.subscribe('approvals', second.handler);
      await store.subscribe('other', elsewhere.handler);
      for (const message of ['a1', 'a2', 'a3']) await store.publish('approvals', message);
      await vi.waitFor(() => expect(first.messages).toEqual(['a1', 'a2', 'a3']), { timeout: 5_000 });
      await vi.waitFor(() => expect(second.messages).toEqual(['a1', 'a2', 'a3']), { timeout: 5_000 });
      await store.publish('other', 'o1');
      await vi.waitFor(() => expect(elsewhere.messages).toEqual(['o1']), { timeout: 5_000 });
      expect(first.messages).toEqual(['a1', 'a2', 'a3']);
    });

    it('stops delivering to a subscriber once it unsubscribed, and keeps delivering to the others', async () => {
      const leaving = inbox();
      const staying = inbox();
      const unsubscribe = await store.subscribe('approvals', leaving.handler);
      await store.subscribe('approvals', staying.handler);
      await store.publish('approvals', 'before');
      await vi.waitFor(() => expect(leaving.messages).toEqual(['before']), { timeout: 5_000 });
      await unsubscribe();
      await unsubscribe();
      await store.publish('approvals', 'after');
      await vi.waitFor(() => expect(staying.messages).toEqual(['before', 'after']), { timeout: 5_000 });
      expect(leaving.messages).toEqual(['before']);
    });

    it('survives a subscriber that throws or rejects: nothing escapes, later messages and others still arrive', async () => {
      const escaped: unknown[] = [];
      const onEscape = (error: unknown): void => void escaped.push(error);
      process.on('uncaughtException', onEscape);
      process.on('unhandledRejection', onEscape);
      try {
        let thrown = 0;
        let rejected = 0;
        const healthy = inbox();
        await store.subscribe('approvals', () => {
          thrown += 1;
          throw new Error('a broken subscriber');
        });
        await store.subscribe('approvals', async () => {
          rejected += 1;
          throw new Error('a broken async subscriber');
        });
        await store.subscribe('approvals', healthy.handler);
        await store.publish('approvals', 'm1');
        await store.publish('approvals', 'm2');
        await vi.waitFor(() => expect(healthy.messages).toEqual(['m1', 'm2']), { timeout: 5_000 });
        expect([thrown, rejected]).toEqual([2, 2]);
        await sleep(50);
        expect(escaped).toEqual([]);
      } finally {
        process.off('uncaughtException', onEscape);
        process.off('unhandledRejection', onEscape);
      }
    });

    if (crossInstance) {
      it('carries a message published on one instance to subscribers on another', async () => {
        const other = await open();
        const there = inbox();
        const here = inbox();
        await other.subscribe('approvals', there.handler);
        await store.subscribe('approvals', here.handler);
        await store.publish('approvals', 'from-one');
        await other.publish('approvals', 'from-two');
        await vi.waitFor(() => expect(there.messages).toEqual(['from-one', 'from-two']), { timeout: 5_000 });
        await vi.waitFor(() => expect(here.messages).toEqual(['from-one', 'from-two']), { timeout: 5_000 });
      });
    }
  });
}
