// The App Home's "Your MCP tasks": the long calls running as tasks that the viewer started in this workspace (server,
// tool, state, since when, a link to the thread), each with the thread note's own Cancel button (`mcp_task_cancel`,
// answered by taskCancel.ts, the core deciding who may cancel). Only the viewer's own: Slack does not tell the bot
// which channels a person can read without asking per channel, and a task's server and tool named on someone
// else's Home could tell them of a private channel's work.
import type { CoreMcp, McpTaskView } from '../../src/platform/index.ts';
import { slackThreadOf } from './ids.ts';
import type { SlackBlock } from './slackBlock.ts';
import { safeText } from './slackText.ts';
import { TASK_CANCEL_ACTION_ID } from './taskCancel.ts';

/** Tasks shown (the Home view's 100 blocks are shared with skills, grants, accounts and routines). */
const MAX_TASKS = 10;

/** A link that opens the thread in the person's Slack (the archive path redirects to their workspace). */
function threadLink(chatId: string): string {
  const place = slackThreadOf(chatId);
  if (place === undefined) return 'a thread';
  return `<https://slack.com/archives/${place.channelId}/p${place.threadTs.replace('.', '')}|thread in <#${place.channelId}>>`;
}

function taskLine(task: McpTaskView): string {
  const since = `<!date^${Math.floor(task.startedAt / 1000)}^{date_short_pretty} {time}|${new Date(task.startedAt).toISOString()}>`;
  const state = task.status === 'input_required' ? 'waiting for your answer' : task.status;
  const note = task.statusMessage ? `: ${safeText(task.statusMessage.slice(0, 120))}` : '';
  return `*${safeText(task.server)}*: \`${safeText(task.tool)}\`, ${state}${note}\nsince ${since}, ${threadLink(task.chatId)}`;
}

/** Nothing when no MCP server is configured; a line saying none when the viewer runs no task. */
export async function taskBlocks(mcp: CoreMcp | undefined, teamId: string, userId: string): Promise<SlackBlock[]> {
  if (mcp === undefined) return [];
  const tasks = (await mcp.runningTasks()).filter((task) => task.requesterId === userId && task.worldId.startsWith(`slack:${teamId}:`));
  const blocks: SlackBlock[] = [{ type: 'divider' }, { type: 'header', text: { type: 'plain_text', text: 'Your MCP tasks' } }];
  if (tasks.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'None running. A long tool call a server runs as a task shows here until it ends.' }] });
  for (const task of tasks.slice(0, MAX_TASKS)) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: taskLine(task) },
      accessory: { type: 'button', action_id: TASK_CANCEL_ACTION_ID, text: { type: 'plain_text', text: 'Cancel' }, value: task.id },
    });
  }
  if (tasks.length > MAX_TASKS) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${tasks.length - MAX_TASKS} more: \`skillbot mcp tasks\` lists them all.` }] });
  return blocks;
}
