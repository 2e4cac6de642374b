// The reply claim's states as two instances see them on one store: a run that lost its message to another instance
// posts nothing, and a message whose poster died mid-post is answered again, but only after the posting grace.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimReply, type ReplyClaimDeps } from '../../src/chats/replyClaim.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

let store: Store;
const alive = new Set<string>();
beforeEach(async () => {
  store = await createStore('memory://');
  alive.clear();
});
afterEach(async () => {
  await store.close();
});

function instance(id: string, postingGraceMs = 60_000): ReplyClaimDeps {
  alive.add(id);
  return { store, instanceId: id, isAlive: async (other) => alive.has(other), postingGraceMs };
}

describe('the reply claim', () => {
  it('refuses the post of a run whose message another instance took over while it ran; that one posts', async () => {
    const a = await claimReply(instance('a'), 'turn-1');
    if (a.kind !== 'mine') throw new Error(a.kind);
    // A starves past its liveness: B takes the message over.
    alive.delete('a');
    const b = await claimReply(instance('b'), 'turn-1');
    if (b.kind !== 'mine') throw new Error(b.kind);
    alive.add('a');
    expect(await a.post()).toBe(false);
    expect(await b.post()).toBe(true);
    await b.done();
    expect((await claimReply(instance('c'), 'turn-1')).kind).toBe('answered');
  });

  it('leaves a posting claim alone while its instance lives, or for the grace after it died; then takes it over', async () => {
    const a = await claimReply(instance('a'), 'turn-2');
    if (a.kind !== 'mine') throw new Error(a.kind);
    expect(await a.post()).toBe(true);
    // A dies before its post is marked done: did the post land? Nobody can tell.
    expect((await claimReply(instance('b', 200), 'turn-2')).kind).toBe('busy');
    alive.delete('a');
    expect((await claimReply(instance('b', 200), 'turn-2')).kind).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 250));
    // Answered again rather than never (at least once after a crash mid-post).
    const b = await claimReply(instance('b', 200), 'turn-2');
    expect(b.kind).toBe('mine');
    // A's late `done` cannot mark B's run replied.
    await a.done();
    expect((await claimReply(instance('c'), 'turn-2')).kind).toBe('busy');
  });
});
