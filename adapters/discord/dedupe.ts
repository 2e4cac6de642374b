// Each Discord interaction answered once across instances (messages go through app.turns.accept).
import type { AdapterState } from '../../src/platform/index.ts';

/** An interaction cannot be answered after its token's 15 minutes: remembering it a little longer is enough. */
const INTERACTION_TTL_MS = 20 * 60_000;

/**
 * Claims an interaction id, so that of several instances receiving it one answers (a second acknowledgement
 * would fail). Interactions are never redelivered for a retry, so there is nothing to release.
 */
export function claimInteraction(store: AdapterState, interactionId: string): Promise<boolean> {
  return store.claim(`discord:interaction:${interactionId}`, INTERACTION_TTL_MS);
}
