import type { Store } from '../store/types.ts';

/** Kept a day: long past any re-run of the same message. */
const KEEP_MS = 24 * 60 * 60 * 1000;

export interface ReplyClaimDeps {
  store: Store;
  instanceId: string;
  /** Whether an instance still runs (its liveness record is fresh). */
  isAlive(instanceId: string): Promise<boolean>;
  /** How long to wait for a claimant that may be alive before giving up (its liveness TTL). */
  waitMs: number;
  pollMs?: number;
}

interface ClaimRecord {
  /** `replying:<instanceId>` while posting, then `replied`. */
  status: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The right to post the answer to one queued message, in two phases so that neither a re-run posts it twice nor a
 * crash mid-post loses it: `replying:<instance>` before posting, `replied` after. A re-run that finds `replying`
 * by an instance that is gone takes the claim over and posts; one that finds `replied` stays silent.
 * Returns a function that marks the answer posted, or undefined when the answer is someone else's (or posted).
 */
export async function claimReply(deps: ReplyClaimDeps, itemId: string): Promise<(() => Promise<void>) | undefined> {
  const key = `replied:${itemId}`;
  const mine = `replying:${deps.instanceId}`;
  const done = async () => {
    await deps.store.compareAndSet('dedupe', key, mine, { status: 'replied' }, KEEP_MS);
  };
  const deadline = Date.now() + deps.waitMs;
  for (;;) {
    if (await deps.store.claim('dedupe', key, { status: mine }, KEEP_MS)) return done;
    const held = await deps.store.get<ClaimRecord>('dedupe', key);
    if (held === undefined) continue;
    if (held.status === 'replied' || held.status === mine) return undefined;
    const owner = held.status.slice('replying:'.length);
    if (!(await deps.isAlive(owner))) {
      return (await deps.store.compareAndSet('dedupe', key, held.status, { status: mine }, KEEP_MS)) ? done : undefined;
    }
    // Its claimant still looks alive: it may be posting right now, or it died moments ago.
    if (Date.now() > deadline) return undefined;
    await sleep(deps.pollMs ?? 1000);
  }
}
