import { afterEach, describe, expect, it } from 'vitest';
import { claimReply } from '../../src/chats/replyClaim.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
});

const deps = (s: Store, instanceId: string, alive: Set<string>) => ({
  store: s,
  instanceId,
  isAlive: async (id: string) => alive.has(id),
  waitMs: 2_000,
  pollMs: 10,
});

describe('the claim to post an answer', () => {
  it('lets one instance post, and a re-run stay silent once the answer is posted', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    const first = await claimReply(deps(store, 'a', alive), 'item-1');
    expect(first).toBeDefined();
    await first!();
    expect(await claimReply(deps(store, 'b', alive), 'item-1')).toBeUndefined();
  });

  it('hands the answer to a re-run when the first instance died while posting', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    expect(await claimReply(deps(store, 'a', alive), 'item-2')).toBeDefined();
    alive.delete('a');
    const rerun = await claimReply(deps(store, 'b', alive), 'item-2');
    expect(rerun).toBeDefined();
    await rerun!();
    expect(await claimReply(deps(store, 'c', new Set(['c'])), 'item-2')).toBeUndefined();
  });

  it('waits for a live claimant to finish rather than posting beside it', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    const first = await claimReply(deps(store, 'a', alive), 'item-3');
    const second = claimReply(deps(store, 'b', alive), 'item-3');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await first!();
    expect(await second).toBeUndefined();
  });
});
