// Each Discord event acted on once, across gateway replays and instances: claims live in the store.
import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/types.ts';

/** Gateway resumes replay events: a message id is remembered this long. */
export const DEDUPE_TTL_MS = 60 * 60_000;
/**
 * A message is "working" from its claim until its turn is queued, normally milliseconds. A working claim older
 * than this belongs to a process that died before queueing it: a redelivery may take it over.
 */
export const DEDUPE_LEASE_MS = 30_000;
/** An interaction cannot be answered after its token's 15 minutes: remembering it a little longer is enough. */
const INTERACTION_TTL_MS = 20 * 60_000;

interface ClaimValue {
  /** `working:<nonce>` while being queued, `done` once queued, `released` when it could not be. */
  status: string;
  at: number;
}

/** One message this instance won the claim on: say how handing it over ended. */
export interface MessageClaim {
  /** The turn is queued (or the message needed no turn): every later delivery is dropped. */
  done(): Promise<void>;
  /** It could not be queued: a redelivery should be processed. */
  abandon(): Promise<void>;
}

/** Claims `discord:message:<id>`; undefined when the message is queued already or being queued elsewhere now. */
export async function claimMessage(store: Store, messageId: string, now: () => number = Date.now): Promise<MessageClaim | undefined> {
  const key = `discord:message:${messageId}`;
  const status = `working:${randomUUID()}`;
  const mine: ClaimValue = { status, at: now() };
  if (!(await store.claim('dedupe', key, mine, DEDUPE_TTL_MS))) {
    const held = await store.get<ClaimValue | number>('dedupe', key);
    // A number is a claim written before claims had a status: that message was handled.
    const stale = held === undefined || (typeof held === 'object' && held.status !== 'done' && now() - held.at >= DEDUPE_LEASE_MS);
    if (!stale) return undefined;
    const taken =
      held === undefined ? await store.claim('dedupe', key, mine, DEDUPE_TTL_MS) : await store.compareAndSet('dedupe', key, held.status, mine, DEDUPE_TTL_MS);
    if (!taken) return undefined;
  }
  return {
    done: async () => {
      await store.compareAndSet('dedupe', key, status, { status: 'done', at: now() }, DEDUPE_TTL_MS);
    },
    // `at: 0` makes the claim stale at once, so the next delivery takes it over.
    abandon: async () => {
      await store.compareAndSet('dedupe', key, status, { status: 'released', at: 0 }, DEDUPE_TTL_MS);
    },
  };
}

/**
 * Claims an interaction id, so that of several instances receiving it one answers (a second acknowledgement
 * would fail). Interactions are never redelivered for a retry, so there is nothing to release.
 */
export function claimInteraction(store: Store, interactionId: string): Promise<boolean> {
  return store.claim('dedupe', `discord:interaction:${interactionId}`, Date.now(), INTERACTION_TTL_MS);
}
