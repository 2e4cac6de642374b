// A click on an approval button. It counts only for a pending approval of this channel and this message, from
// someone who may answer; anyone else is told why, privately, and nothing changes.
import type { App as BoltApp } from '@slack/bolt';
import type { ApprovalRecord, Core, DeliveryDedupe } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { optionOfAction, outcomeText } from './approvalCard.ts';
import { parseMessageRef, slackWorldId } from './ids.ts';
import { approvalClickSchema } from './payloads.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import type { BackgroundTasks } from './tasks.ts';

export interface ClickDeps {
  core: Core;
  api: SlackApi;
  dedupe: DeliveryDedupe;
  tasks: BackgroundTasks;
  logger: Logger;
}

export interface ApprovalClick {
  teamId: string;
  channelId: string;
  messageTs: string;
  threadTs?: string;
  userId: string;
  actionId: string;
  approvalId: string;
}

export const NOT_THIS_MESSAGE_TEXT = 'That button does not belong to this approval, so it changed nothing.';
export const NOT_FOUND_TEXT = 'This approval no longer exists (it expired long ago), so the click changed nothing.';
export const WRONG_CHANNEL_TEXT = 'This approval belongs to another channel, so the click changed nothing.';
export const INVALID_OPTION_TEXT = 'That is not one of the answers this approval accepts.';

function alreadyText(record: ApprovalRecord): string {
  return `This approval is already closed. ${outcomeText(record)}`;
}

/** Returns the private explanation for the clicker, or undefined when the click counted (or was already explained). */
async function answer(deps: ClickDeps, click: ApprovalClick): Promise<string | undefined> {
  const option = optionOfAction(click.actionId);
  if (option === undefined) return INVALID_OPTION_TEXT;
  const stored = await deps.core.approvals.record(click.approvalId);
  const shownIn = parseMessageRef(stored?.platformRef);
  // A payload naming another message (a copied button, a forged request) must not answer this question.
  if (shownIn !== undefined && (shownIn.channelId !== click.channelId || shownIn.ts !== click.messageTs)) return NOT_THIS_MESSAGE_TEXT;
  const result = await deps.core.approvals.respond({
    worldId: slackWorldId(click.teamId, click.channelId),
    approvalId: click.approvalId,
    option,
    userId: click.userId,
  });
  switch (result.kind) {
    case 'accepted':
    case 'not_allowed': // the runtime told the clicker already, through the presenter
      return undefined;
    case 'not_found':
      return NOT_FOUND_TEXT;
    case 'wrong_world':
      return WRONG_CHANNEL_TEXT;
    case 'already_resolved':
      return alreadyText(result.record);
    case 'invalid_option':
      return INVALID_OPTION_TEXT;
  }
}

export async function handleApprovalClick(deps: ClickDeps, click: ApprovalClick): Promise<void> {
  const explanation = await answer(deps, click);
  if (explanation === undefined) return;
  await deps.api.postEphemeral({
    channel: click.channelId,
    user: click.userId,
    text: explanation,
    ...(click.threadTs ? { threadTs: click.threadTs } : {}),
  });
}

export function registerApprovalClicks(bolt: BoltApp, deps: ClickDeps): void {
  bolt.action(/^hitl_/, async ({ ack, body, context }) => {
    await ack();
    const parsed = approvalClickSchema.safeParse(body);
    if (!parsed.success) {
      deps.logger.warn({ issue: parsed.error.issues[0]?.message }, 'malformed Slack button payload ignored');
      return;
    }
    const payload = parsed.data;
    const action = payload.actions[0];
    const teamId = payload.team?.id ?? payload.user.team_id ?? context.teamId;
    const channelId = payload.container?.channel_id ?? payload.channel?.id;
    const messageTs = payload.container?.message_ts ?? payload.message?.ts;
    if (!action?.value || !teamId || !channelId || !messageTs) return;
    const threadTs = payload.container?.thread_ts ?? payload.message?.thread_ts;
    const click: ApprovalClick = {
      teamId,
      channelId,
      messageTs,
      userId: payload.user.id,
      actionId: action.action_id,
      approvalId: action.value,
      ...(threadTs ? { threadTs } : {}),
    };
    deps.tasks.run('approval click', async () => {
      // A Socket Mode replay of the same click is answered once.
      const key = `click:${payload.trigger_id ?? `${click.userId}:${action.action_ts ?? messageTs}`}`;
      const delivery = await deps.dedupe.take([key]);
      if (delivery === undefined) return;
      try {
        await handleApprovalClick(deps, click);
      } catch (error) {
        deps.logger.error({ err: slackErrorCode(error), approvalId: click.approvalId }, 'handling an approval click failed');
      }
      await delivery.done();
    });
  });
}
