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
  /**
   * `replying:<instance>` while the turn runs, `posting:<instance>` from just before its answer is posted,
   * `replied` once it was, or `released` when it was handed over unanswered.
   */
  status: string;
}

const RELEASED = 'released';
const REPLYING = 'replying:';
const POSTING = 'posting:';

/**
 * What a run of a queued message may do. `mine`: it runs the turn (`holds()`: the claim is still its own);
 * `post()` says, just before the answer goes out, whether this run may still post it (false: another instance took
 * the message over meanwhile), then `done`.
 * `answered`: an earlier run posted the answer (or its apology): run nothing, show nothing. `busy`: a live
 * instance is answering it: leave it to that one (the queue looks again at its next sweep).
 */
export type ReplyClaim =
  | { kind: 'mine'; holds: () => Promise<boolean>; post: () => Promise<boolean>; done: () => Promise<void>; release: () => Promise<void> }
  | { kind: 'answered' }
  | { kind: 'busy' };

/**
 * The right to answer one queued message, taken before its turn shows anything, so that neither a re-run shows or
 * posts the answer twice nor a crash mid-turn loses it: `replying:<instance>` while the turn runs, `replied` once
 * its answer is posted. A run that finds `replying` by an instance that is gone (or `released` by one that handed
 * the chat over at shutdown) takes the claim over; one that finds `replied`, or its own instance, stays silent.
 * The answer itself is posted only after `replying:<instance>` became `posting:<instance>` by compare-and-set: a
 * run that outlived its lease (its instance starved, taken for dead, its message re-run elsewhere) finds its claim
 * gone there and posts nothing. A `posting` claim of an instance that looks gone is taken over like a `replying`
 * one: that instance may have died before its post landed, and a message answered again (on Slack, written over the
 * same message) is better than one never answered. Waiting longer would hold every chat of a killed instance
 * (failover must answer within seconds) only to guard against a stall in the one platform call of the post.
 */
export async function claimReply(deps: ReplyClaimDeps, itemId: string): Promise<ReplyClaim> {
  const key = `replied:${itemId}`;
  const replying = `${REPLYING}${deps.instanceId}`;
  const posting = `${POSTING}${deps.instanceId}`;
  const taken = (): ReplyClaim => ({
    kind: 'mine',
    holds: async () => (await deps.store.get<ClaimRecord>('dedupe', key))?.status === replying,
    post: () => deps.store.compareAndSet<ClaimRecord>('dedupe', key, replying, { status: posting }, KEEP_MS),
    done: async () => {
      // Still `replying` when the store did not answer `post` and the answer went out all the same.
      if (!(await deps.store.compareAndSet('dedupe', key, posting, { status: 'replied' }, KEEP_MS))) {
        await deps.store.compareAndSet('dedupe', key, replying, { status: 'replied' }, KEEP_MS);
      }
    },
    release: async () => {
      await deps.store.compareAndSet('dedupe', key, replying, { status: RELEASED }, KEEP_MS);
    },
  });
  for (;;) {
    if (await deps.store.claim('dedupe', key, { status: replying }, KEEP_MS)) return taken();
    const held = await deps.store.get<ClaimRecord>('dedupe', key);
    if (held === undefined) continue;
    if (held.status === 'replied' || held.status === replying || held.status === posting) return { kind: 'answered' };
    if (!(await mayTakeOver(deps, held))) return { kind: 'busy' };
    return (await deps.store.compareAndSet('dedupe', key, held.status, { status: replying }, KEEP_MS)) ? taken() : { kind: 'busy' };
  }
}

/** Another instance's claim: taken over when it was released, or its instance is gone. */
async function mayTakeOver(deps: ReplyClaimDeps, held: ClaimRecord): Promise<boolean> {
  if (held.status === RELEASED) return true;
  const owner = held.status.slice((held.status.startsWith(POSTING) ? POSTING : REPLYING).length);
  return !(await deps.isAlive(owner));
}
