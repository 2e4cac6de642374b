// The operator's record of what happened to a routine, follow-up or webhook, in the log.
import type { Logger } from '../ops/log.ts';

/** One log line per change or run of a routine, follow-up or webhook: what, which, who, with what outcome. */
export function logRoutineDecision(
  logger: Logger,
  fields: { decision: string; id: string; kind: string; worldId: string; by?: string; chatId?: string; tick?: number; detail?: string },
): void {
  logger.info({ ...fields, ...(fields.tick === undefined ? {} : { tick: new Date(fields.tick).toISOString() }) }, 'routine decision');
}
