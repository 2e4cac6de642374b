import { afterEach, describe, expect, it } from 'vitest';
import { claimReply, type ReplyClaim } from '../../src/chats/replyClaim.ts';
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
});

function mine(claim: ReplyClaim): Extract<ReplyClaim, { kind: 'mine' }> {
  if (claim.kind !== 'mine') throw new Error(`expected the claim, got ${claim.kind}`);
  return claim;
}

describe('the claim to answer a queued message', () => {
  it('lets one instance answer, and a re-run stay silent once the answer is posted', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    await mine(await claimReply(deps(store, 'a', alive), 'item-1')).done();
    expect((await claimReply(deps(store, 'b', alive), 'item-1')).kind).toBe('answered');
  });

  it('hands the answer to a re-run when the first instance died mid-turn', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    mine(await claimReply(deps(store, 'a', alive), 'item-2'));
    alive.delete('a');
    await mine(await claimReply(deps(store, 'b', alive), 'item-2')).done();
    expect((await claimReply(deps(store, 'c', new Set(['c'])), 'item-2')).kind).toBe('answered');
  });

  it('leaves a message a live instance is answering to that instance', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    mine(await claimReply(deps(store, 'a', alive), 'item-3'));
    expect((await claimReply(deps(store, 'b', alive), 'item-3')).kind).toBe('busy');
  });

  it('lets a re-run answer at once when the first instance handed the message over at shutdown', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    await mine(await claimReply(deps(store, 'a', alive), 'item-4')).release();
    expect((await claimReply(deps(store, 'b', alive), 'item-4')).kind).toBe('mine');
  });
});
