// Stopping a running turn from Slack: the Stop button on its progress message, or a message that is just "stop".
import type { App as BoltApp } from '@slack/bolt';
import { type Core, type DeliveryDedupe, isStopText, STOP_NOT_ALLOWED_TEXT, type StopResult } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { slackChatId, slackWorldId } from './ids.ts';
import { approvalClickSchema } from './payloads.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import type { BackgroundTasks } from './tasks.ts';
import { TURN_STOP_ACTION_ID } from './turnControls.ts';

export const NOTHING_RUNNING_TEXT = 'Nothing is running in this thread, so there is nothing to stop.';

export interface StopDeps {
  core: Core;
  api: SlackApi;
  dedupe: DeliveryDedupe;
  tasks: BackgroundTasks;
  logger: Logger;
}

export interface StopAsk {
  teamId: string;
  channelId: string;
  threadTs: string;
  userId: string;
  turnId?: string;
}

/** Stops the thread's turn, or tells the person privately why not. The stopped turn itself says "Stopped by". */
export async function stopInThread(deps: Pick<StopDeps, 'core' | 'api'>, ask: StopAsk): Promise<StopResult> {
  const worldId = slackWorldId(ask.teamId, ask.channelId);
  const result = await deps.core.turns.stop({
    worldId,
    chatId: slackChatId(worldId, ask.threadTs),
    userId: ask.userId,
    ...(ask.turnId === undefined ? {} : { turnId: ask.turnId }),
  });
  const privately = result.kind === 'not_allowed' ? STOP_NOT_ALLOWED_TEXT : result.kind === 'not_running' ? NOTHING_RUNNING_TEXT : undefined;
  if (privately) await deps.api.postEphemeral({ channel: ask.channelId, user: ask.userId, threadTs: ask.threadTs, text: privately });
  return result;
}

export function registerStopClicks(bolt: BoltApp, deps: StopDeps): void {
  bolt.action(TURN_STOP_ACTION_ID, async ({ ack, body, context }) => {
    await ack();
    const parsed = approvalClickSchema.safeParse(body);
    if (!parsed.success) {
      deps.logger.warn({ issue: parsed.error.issues[0]?.message }, 'malformed Slack Stop click ignored');
      return;
    }
    const payload = parsed.data;
    const action = payload.actions[0];
    const teamId = payload.team?.id ?? payload.user.team_id ?? context.teamId;
    const channelId = payload.container?.channel_id ?? payload.channel?.id;
    const threadTs = payload.container?.thread_ts ?? payload.message?.thread_ts;
    if (!action?.value || !teamId || !channelId || !threadTs) return;
    const ask: StopAsk = { teamId, channelId, threadTs, userId: payload.user.id, turnId: action.value };
    // Not queued behind the chat's turns: a stop acts at once.
    deps.tasks.run('stop click', async () => {
      const key = `click:${payload.trigger_id ?? `${ask.userId}:${action.action_ts ?? threadTs}`}`;
      const delivery = await deps.dedupe.take([key]);
      if (delivery === undefined) return;
      try {
        await stopInThread(deps, ask);
      } catch (error) {
        deps.logger.error({ err: slackErrorCode(error), turnId: ask.turnId }, 'handling a Stop click failed');
      }
      await delivery.done();
    });
  });
}

export { isStopText, STOP_NOT_ALLOWED_TEXT };
