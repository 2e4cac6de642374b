import type { Store } from '../store/types.ts';

/** Kept a day: long past any re-run of the same message. */
const KEEP_MS = 24 * 60 * 60 * 1000;

export interface ReplyClaimDeps {
  store: Store;
  instanceId: string;
  /** Whether an instance still runs (its liveness record is fresh). */
  isAlive(instanceId: string): Promise<boolean>;
}

interface ClaimRecord {
  /** `replying:<instanceId>` while the turn runs, `released` when it was handed over unanswered, then `replied`. */
  status: string;
}

const RELEASED = 'released';

/**
 * What a run of a queued message may do. `mine`: it answers (then calls `done`). `answered`: an earlier run posted
 * the answer (or its apology): run nothing, show nothing. `busy`: a live instance is answering it: leave it to that
 * one (the queue looks again at its next sweep).
 */
export type ReplyClaim = { kind: 'mine'; done: () => Promise<void>; release: () => Promise<void> } | { kind: 'answered' } | { kind: 'busy' };

/**
 * The right to answer one queued message, taken before its turn shows anything, so that neither a re-run shows or
 * posts the answer twice nor a crash mid-turn loses it: `replying:<instance>` while the turn runs, `replied` once
 * its answer is posted. A run that finds `replying` by an instance that is gone (or `released` by one that handed
 * the chat over at shutdown) takes the claim over; one that finds `replied`, or its own instance, stays silent.
 */
export async function claimReply(deps: ReplyClaimDeps, itemId: string): Promise<ReplyClaim> {
  const key = `replied:${itemId}`;
  const mine = `replying:${deps.instanceId}`;
  const taken = (): ReplyClaim => ({
    kind: 'mine',
    done: async () => {
      await deps.store.compareAndSet('dedupe', key, mine, { status: 'replied' }, KEEP_MS);
    },
    release: async () => {
      await deps.store.compareAndSet('dedupe', key, mine, { status: RELEASED }, KEEP_MS);
    },
  });
  for (;;) {
    if (await deps.store.claim('dedupe', key, { status: mine }, KEEP_MS)) return taken();
    const held = await deps.store.get<ClaimRecord>('dedupe', key);
    if (held === undefined) continue;
    if (held.status === 'replied' || held.status === mine) return { kind: 'answered' };
    const owner = held.status === RELEASED ? undefined : held.status.slice('replying:'.length);
    if (owner !== undefined && (await deps.isAlive(owner))) return { kind: 'busy' };
    return (await deps.store.compareAndSet('dedupe', key, held.status, { status: mine }, KEEP_MS)) ? taken() : { kind: 'busy' };
  }
}
