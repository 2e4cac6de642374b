// Delivery claims on a real store: a redelivery is dropped while the first is handled or once it was, and
// processed when the first was never processed (its process died, or it gave up).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEDUPE_LEASE_MS, DeliveryDedupe } from '../../src/chats/deliveryDedupe.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

let store: Store;
let now = 1_000_000;
const clock = () => now;

beforeEach(async () => {
  store = await createStore('memory://');
  now = 1_000_000;
});
afterEach(async () => {
  await store.close();
});

describe('DeliveryDedupe', () => {
  it('lets exactly one of concurrent deliveries through', async () => {
    const dedupe = new DeliveryDedupe(store, { now: clock });
    const results = await Promise.all([1, 2, 3, 4].map(() => dedupe.take(['message:T:C:1.1', 'event:Ev1'])));
    expect(results.filter((delivery) => delivery !== undefined)).toHaveLength(1);
  });

  it('drops a redelivery of a processed message, whichever of its keys it shares', async () => {
    const dedupe = new DeliveryDedupe(store, { now: clock });
    const first = await dedupe.take(['message:T:C:1.1', 'event:Ev1']);
    await first?.done();
    now += DEDUPE_LEASE_MS * 10;
    expect(await dedupe.take(['message:T:C:1.1', 'event:Ev1'])).toBeUndefined();
    // The app_mention twin of the same message: another event id, the same channel and ts.
    expect(await dedupe.take(['message:T:C:1.1', 'event:Ev2'])).toBeUndefined();
  });

  it('processes a retry when the first delivery was claimed by a process that died before queueing it', async () => {
    const dead = new DeliveryDedupe(store, { now: clock });
    expect(await dead.take(['message:T:C:2.2', 'event:Ev3'])).toBeDefined();
    const alive = new DeliveryDedupe(store, { now: clock });
    // Slack's immediate retry, while the first may still be in hand: dropped.
    expect(await alive.take(['message:T:C:2.2', 'event:Ev3'])).toBeUndefined();
    // A later retry, once the claim is stale: processed.
    now += DEDUPE_LEASE_MS + 1;
    const retry = await alive.take(['message:T:C:2.2', 'event:Ev3']);
    expect(retry).toBeDefined();
    await retry?.done();
    expect(await alive.take(['message:T:C:2.2', 'event:Ev3'])).toBeUndefined();
  });

  it('processes a redelivery at once when the first gave up', async () => {
    const dedupe = new DeliveryDedupe(store, { now: clock });
    const first = await dedupe.take(['event:Ev4']);
    await first?.abandon();
    expect(await dedupe.take(['event:Ev4'])).toBeDefined();
  });

  it('forgets a message after the time to live', async () => {
    const dedupe = new DeliveryDedupe(store, { ttlMs: 50 });
    await (await dedupe.take(['event:Ev5']))?.done();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await dedupe.take(['event:Ev5'])).toBeDefined();
  });
});
