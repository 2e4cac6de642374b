// Puts approval questions into Slack threads and marks them resolved, from any instance (the record holds
// the message's channel and ts).
import type { ApprovalPresenter, ApprovalRecord } from '../../src/platform/index.ts';
import {
  approvalAttachment,
  approvalBlocks,
  approvalFallbackText,
  resolvedBlocks,
  resolvedFallbackText,
} from './approvalCard.ts';
import { messageRef, parseMessageRef, slackThreadOf } from './ids.ts';
import type { SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';

export class SlackApprovalPresenter implements ApprovalPresenter {
  constructor(private readonly api: SlackApi) {}

  /** Posts the question in the chat's thread; the reference is `channel:ts`. */
  async present(record: ApprovalRecord): Promise<string | undefined> {
    const place = slackThreadOf(record.chatId);
    if (place === undefined) throw new Error(`not a Slack chat id: ${record.chatId}`);
    // Too long for the card: the whole text goes first, as a file in the thread, so it is there before the
    // buttons are. If it cannot be shared the card is not posted either (the default answer, no, applies).
    const attachment = approvalAttachment(record);
    if (attachment !== undefined) {
      await this.api.uploadText({
        channel: place.channelId,
        threadTs: place.threadTs,
        ...attachment,
        comment: 'Everything the approval question below covers, in full.',
      });
    }
    const ts = await this.api.post({
      channel: place.channelId,
      threadTs: place.threadTs,
      text: approvalFallbackText(record),
      blocks: approvalBlocks(record),
    });
    return messageRef(place.channelId, ts);
  }

  /** Updates the question in place: buttons gone, outcome and decider shown. */
  async resolved(record: ApprovalRecord): Promise<void> {
    const ref = parseMessageRef(record.platformRef);
    if (ref === undefined) return;
    await this.api.update({ channel: ref.channelId, ts: ref.ts, text: resolvedFallbackText(record), blocks: resolvedBlocks(record) });
  }

  async tellPrivately(record: ApprovalRecord, userId: string, text: string): Promise<void> {
    const place = slackThreadOf(record.chatId);
    if (place === undefined) return;
    await this.api.postEphemeral({ channel: place.channelId, user: userId, text: safeText(text), threadTs: place.threadTs });
  }
}
