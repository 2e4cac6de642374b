// An MCP call running as a task, in its Discord thread: the note with its Cancel button (`task:<id>:cancel`), and
// the click, answered ephemerally to the clicker (the core decides who may cancel: the requester or an approver).
import { type ButtonInteraction, ButtonStyle, ComponentType, MessageFlags } from 'discord.js';
import type { Core } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import type { MessageBody } from './discordApi.ts';

export const TASK_PREFIX = 'task:';

/** The note: its text and the Cancel button (a task id is the store's uuid). */
export function taskNote(text: string, taskId: string): MessageBody {
  return {
    content: text.slice(0, 2000),
    components: [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, custom_id: `${TASK_PREFIX}${taskId}:cancel`.slice(0, 100), label: 'Cancel', style: ButtonStyle.Danger }] }],
  };
}

export async function answerTaskCancelClick(interaction: ButtonInteraction, deps: { core: Pick<Core, 'mcp'>; log: Logger }): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const taskId = /^task:([A-Za-z0-9_-]{1,90}):cancel$/.exec(interaction.customId)?.[1];
  const mcp = deps.core.mcp;
  const answer = taskId === undefined || mcp === undefined ? 'That task is no longer running.' : await mcp.cancelTask(taskId, interaction.user.id);
  deps.log.info({ taskId, clicker: interaction.user.id }, 'MCP task Cancel click');
  await interaction.editReply({ content: answer });
}
