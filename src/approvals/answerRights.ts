// Who may answer a question, and what everyone else is told (privately).
import type { Logger } from '../ops/log.ts';
import type { ApprovalPresenter, ApprovalRecord } from './types.ts';

export const NOT_ALLOWED_TEXT = "Only the person who asked, or one of this channel's approvers, can answer this approval.";
export const NOT_AN_INSTALLER_TEXT = "Only this channel's installers can answer an install review (asking for an install is not approving it).";

/** The question's own answerers when it names them (an install review: the installers); else its requester and the
 * world's approvers. A failure to read the approvers lets nobody else answer. */
export function mayAnswer(record: ApprovalRecord, userId: string, approversFor: (worldId: string) => string[], logger: Logger): boolean {
  if (record.answerers !== undefined) return record.answerers.includes(userId);
  if (userId === record.requesterId) return true;
  try {
    return approversFor(record.worldId).includes(userId);
  } catch (error) {
    logger.error({ err: error, worldId: record.worldId }, 'reading the approvers failed');
    return false;
  }
}

/** Tells someone who may not answer why, in a message only they see; a platform that fails to is logged. */
export async function tellNotAllowed(presenter: ApprovalPresenter | undefined, record: ApprovalRecord, userId: string, logger: Logger): Promise<void> {
  try {
    await presenter?.tellPrivately(record, userId, record.answerers === undefined ? NOT_ALLOWED_TEXT : NOT_AN_INSTALLER_TEXT);
  } catch (error) {
    logger.warn({ err: error, approvalId: record.id }, 'telling a user privately failed');
  }
}
