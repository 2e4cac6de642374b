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
    const a = mine(await claimReply(deps(store, 'a', alive), 'item-1'));
    expect(await a.post()).toBe(true);
    await a.done();
    expect((await claimReply(deps(store, 'b', alive), 'item-1')).kind).toBe('answered');
  });

  it('hands the answer to a re-run when the first instance died mid-turn', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    mine(await claimReply(deps(store, 'a', alive), 'item-2'));
    alive.delete('a');
    const b = mine(await claimReply(deps(store, 'b', alive), 'item-2'));
    expect(await b.post()).toBe(true);
    await b.done();
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

  it('refuses the post of a run whose message another instance took over while it ran; that one posts', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    const a = mine(await claimReply(deps(store, 'a', alive), 'item-5'));
    // A starves of CPU past its liveness: B takes the message over, then A wakes up with its answer.
    alive.delete('a');
    const b = mine(await claimReply(deps(store, 'b', alive), 'item-5'));
    alive.add('a');
    expect(await a.post()).toBe(false);
    expect(await b.post()).toBe(true);
    await b.done();
    expect((await claimReply(deps(store, 'c', alive), 'item-5')).kind).toBe('answered');
  });

  it('leaves a claim marked posting alone while its instance lives, and takes it over once it looks gone', async () => {
    store = await createStore('memory://');
    const alive = new Set(['a', 'b']);
    const a = mine(await claimReply(deps(store, 'a', alive), 'item-6'));
    expect(await a.post()).toBe(true);
    expect((await claimReply(deps(store, 'b', alive), 'item-6')).kind).toBe('busy');
    // A dies before its post is marked done: whether the post landed, nobody can tell; answered again rather than never.
    alive.delete('a');
    mine(await claimReply(deps(store, 'b', alive), 'item-6'));
    // A's late `done` cannot mark B's run answered.
    await a.done();
    expect((await claimReply(deps(store, 'c', alive), 'item-6')).kind).toBe('busy');
  });
});
