// The App Home's routines and hooks: the person's own in this workspace, with next run and last result.
import type { App } from '../../src/app.ts';
import { hookLine, routineLine } from '../../src/routines/commands.ts';
import type { SlackBlock } from './slackBlock.ts';
import { answerText } from './routineCommands.ts';

const MAX_LINES = 10;

export async function routineBlocks(app: App, teamId: string, userId: string): Promise<SlackBlock[]> {
  const inTeam = (worldId: string) => worldId.startsWith(`slack:${teamId}:`);
  const [routines, hooks] = await Promise.all([app.routines.rules.list(undefined), app.routines.hooks.list(undefined)]);
  const lines = [
    ...routines.filter((view) => inTeam(view.routine.worldId) && view.routine.owner === userId).map((view) => `${routineLine(view)} in <#${view.routine.worldId.split(':')[2] ?? ''}>`),
    ...hooks.filter((hook) => inTeam(hook.worldId) && hook.owner === userId).map((hook) => hookLine(hook, app.routines.hooks.urlOf(hook.id))),
  ];
  const blocks: SlackBlock[] = [{ type: 'divider' }, { type: 'header', text: { type: 'plain_text', text: 'Your routines and hooks' } }];
  if (lines.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'None. `/routine add WHEN :: INSTRUCTIONS` or `/hook add github` in a channel adds one.' }] });
  for (const line of lines.slice(0, MAX_LINES)) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: answerText(line).replace(/&lt;#(C[A-Z0-9]+)&gt;/g, '<#$1>') } });
  return blocks;
}
