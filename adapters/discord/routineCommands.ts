// `/routine command:…` and `/hook command:…`: answered ephemerally by the core's routines (src/routines).
import { type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import type { Core } from '../../src/platform/index.ts';

export async function runRoutineInteraction(interaction: ChatInputCommandInteraction, routines: Core['routines'], worldId: string | undefined): Promise<void> {
  if (worldId === undefined) {
    await interaction.reply({ content: 'Routines and hooks live in a server text channel.', flags: MessageFlags.Ephemeral });
    return;
  }
  // Deferred: adding a hook posts its root message, which may take longer than Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const place = { worldId, userId: interaction.user.id };
  const text = interaction.options.getString('command') ?? 'list';
  const answer = interaction.commandName === 'routine' ? await routines.routineCommand(place, text) : await routines.hookCommand(place, text);
  await interaction.editReply({ content: answer.slice(0, 2000), allowedMentions: { parse: [] } });
}
