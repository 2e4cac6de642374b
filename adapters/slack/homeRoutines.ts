// The App Home's routines and hooks: the person's own in this workspace, with next run and last result.
import type { Core } from '../../src/platform/index.ts';
import type { SlackBlock } from './slackBlock.ts';
import { answerText } from './routineCommands.ts';

const MAX_LINES = 10;

export async function routineBlocks(core: Core, teamId: string, userId: string): Promise<SlackBlock[]> {
  const inTeam = (worldId: string) => worldId.startsWith(`slack:${teamId}:`);
  const owned = await core.routines.ownedBy(userId, inTeam);
  const lines = [...owned.routines.map((routine) => `${routine.line} in <#${routine.worldId.split(':')[2] ?? ''}>`), ...owned.hooks];
  const blocks: SlackBlock[] = [{ type: 'divider' }, { type: 'header', text: { type: 'plain_text', text: 'Your routines and hooks' } }];
  if (lines.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'None. `/routine add WHEN :: INSTRUCTIONS` or `/hook add github` in a channel adds one.' }] });
  for (const line of lines.slice(0, MAX_LINES)) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: answerText(line).replace(/&lt;#(C[A-Z0-9]+)&gt;/g, '<#$1>') } });
  return blocks;
}
