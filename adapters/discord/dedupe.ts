// Each Discord interaction answered once across instances (messages go through app.dispatcher.accept).
import type { Store } from '../../src/store/types.ts';

/** An interaction cannot be answered after its token's 15 minutes: remembering it a little longer is enough. */
const INTERACTION_TTL_MS = 20 * 60_000;

/**
 * Claims an interaction id, so that of several instances receiving it one answers (a second acknowledgement
 * would fail). Interactions are never redelivered for a retry, so there is nothing to release.
 */
export function claimInteraction(store: Store, interactionId: string): Promise<boolean> {
  return store.claim('dedupe', `discord:interaction:${interactionId}`, Date.now(), INTERACTION_TTL_MS);
}
