// Picking skills of a collection on its install card: a string select (`pick:<approvalId>`). A pick closes the
// card and the core asks anew, on a new card, for exactly the skills picked; "Yes" installs only what a card lists.
import { ComponentType, MessageFlags, type StringSelectMenuInteraction } from 'discord.js';
import type { ApprovalRecord, Core } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { channelFactsOf, locate, type ThreadDirectory, worldOf } from './places.ts';

export const PICK_PREFIX = 'pick:';
/** Discord's bound on a select menu's options. */
const MAX_OPTIONS = 25;

/** The select row of a card that offers picks (none when it offers one thing, or more than Discord can list). */
export function pickRows(record: ApprovalRecord): object[] {
  const picks = record.picks;
  if (picks === undefined || picks.choices.length < 2 || picks.choices.length > MAX_OPTIONS) return [];
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.StringSelect,
          custom_id: `${PICK_PREFIX}${record.id}`,
          placeholder: 'Pick the skills to install',
          min_values: 1,
          max_values: picks.choices.length,
          options: picks.choices.map((id) => ({ label: id.slice(0, 100), value: id, default: picks.picked.includes(id) })),
        },
      ],
    },
  ];
}

/** A line under the card for what the select cannot offer. */
export function pickNote(record: ApprovalRecord): string {
  const picks = record.picks;
  if (picks === undefined || picks.choices.length < 2) return '';
  if (picks.choices.length > MAX_OPTIONS) return '\nToo many skills to pick from here: ask again with the `skill` option for the ones wanted.';
  return `\nSkills to install: ${picks.picked.length} of ${picks.choices.length}; pick in the menu to narrow (a new card then lists exactly those).`;
}

/** How a card closed by a pick reads. */
export function repickedText(repicked: { by: string; picked: string[] }): string {
  return `🔀 **Replaced**: <@${repicked.by}> picked ${repicked.picked.map((id) => `\`${id}\``).join(', ')}; the card below asks for exactly those. Nothing was installed from this one.`;
}

export async function answerPick(interaction: StringSelectMenuInteraction, deps: { core: Pick<Core, 'install'>; threads: ThreadDirectory; log: Logger }): Promise<void> {
  await interaction.deferUpdate();
  const worldId = worldOf(await locate(channelFactsOf(interaction.channel, interaction.channelId, interaction.guildId), deps.threads));
  const approvalId = interaction.customId.slice(PICK_PREFIX.length);
  const result =
    worldId === undefined
      ? { ok: false, text: 'This install card is no longer open, so the pick changed nothing.' }
      : await deps.core.install.pick({ worldId, approvalId, userId: interaction.user.id, ids: interaction.values });
  deps.log.info({ approvalId, userId: interaction.user.id, ok: result.ok }, 'install pick');
  if (!result.ok) await interaction.followUp({ content: result.text, flags: MessageFlags.Ephemeral });
}
