// The operator's record of a refusal by a world's `access` rules, in the log.
import type { Logger } from '../ops/log.ts';

/** The one log line of a refusal by a world's `access` rules (`decision: refused_access`): who, where, why, for what. */
export function logRefusedAccess(logger: Logger, entry: { worldId: string; userId: string; reason: string; what: string }): void {
  logger.info({ decision: 'refused_access', worldId: entry.worldId, userId: entry.userId, reason: entry.reason, what: entry.what }, 'refused access');
}
