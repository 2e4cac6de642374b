// An MCP call running as a task, in its Slack thread: the note with its Cancel button (action `mcp_task_cancel`,
// value the task id), and the click, answered privately to the clicker (the core decides who may cancel). The same
// button on the App Home (homeTasks.ts) carries no channel: its answer goes privately to the task's thread, and the
// Home is published again.
import type { App as BoltApp } from '@slack/bolt';
import type { Core, DeliveryDedupe } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { slackThreadOf } from './ids.ts';
import { approvalClickSchema } from './payloads.ts';
import type { SlackBlock } from './slackBlock.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import type { BackgroundTasks } from './tasks.ts';

export const TASK_CANCEL_ACTION_ID = 'mcp_task_cancel';

/** Publishes a person's Home again (appHome.ts), after a Cancel clicked there. */
export interface HomeRefresh {
  refresh(teamId: string, userId: string): Promise<void>;
}

/** The note's blocks: its text, and the Cancel button. */
export function taskNoteBlocks(text: string, taskId: string): SlackBlock[] {
  return [
    { type: 'section', text: { type: 'plain_text', text } },
    { type: 'actions', block_id: 'mcp_task', elements: [{ type: 'button', action_id: TASK_CANCEL_ACTION_ID, text: { type: 'plain_text', text: 'Cancel' }, value: taskId }] },
  ] as SlackBlock[];
}

export function registerTaskCancelClicks(bolt: BoltApp, deps: { core: Core; api: SlackApi; dedupe: DeliveryDedupe; tasks: BackgroundTasks; logger: Logger; home?: HomeRefresh }): void {
  bolt.action(TASK_CANCEL_ACTION_ID, async ({ ack, body }) => {
    await ack();
    const parsed = approvalClickSchema.safeParse(body);
    if (!parsed.success) return void deps.logger.warn({ issue: parsed.error.issues[0]?.message }, 'malformed Slack task Cancel click ignored');
    const payload = parsed.data;
    const taskId = payload.actions[0]?.value;
    const mcp = deps.core.mcp;
    if (!taskId || mcp === undefined) return;
    deps.tasks.run('task cancel click', async () => {
      const delivery = await deps.dedupe.take([`click:${payload.trigger_id ?? `${payload.user.id}:${taskId}`}`]);
      if (delivery === undefined) return;
      try {
        // A Home click names no thread: the task's own is where its Cancel is answered.
        const fromHome = (payload.container?.channel_id ?? payload.channel?.id) === undefined;
        const task = fromHome ? slackThreadOf((await mcp.runningTasks()).find((running) => running.id === taskId)?.chatId ?? '') : undefined;
        const channelId = payload.container?.channel_id ?? payload.channel?.id ?? task?.channelId;
        const threadTs = payload.container?.thread_ts ?? payload.message?.thread_ts ?? task?.threadTs;
        const answer = await mcp.cancelTask(taskId, payload.user.id);
        if (channelId !== undefined) await deps.api.postEphemeral({ channel: channelId, user: payload.user.id, text: answer, ...(threadTs ? { threadTs } : {}) });
        const teamId = payload.team?.id ?? payload.user.team_id;
        if (fromHome && teamId !== undefined) await deps.home?.refresh(teamId, payload.user.id);
      } catch (error) {
        deps.logger.error({ err: slackErrorCode(error), taskId }, 'handling a task Cancel click failed');
      }
      await delivery.done();
    });
  });
}
