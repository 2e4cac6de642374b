// Who may use the bot, the Discord side: a member's roles (REST, no privileged intent), and the check on every
// command and button before it does anything. Role changes reach the cache through guildMemberUpdate when the
// bot has the GuildMembers intent; without it, facts are read again after their lifetime (src/access/membership.ts).
import { type Interaction, MessageFlags } from 'discord.js';
import { type Core, type Membership, type MembershipSource, parseWorldId } from '../../src/platform/index.ts';
import type { DiscordApi } from './discordApi.ts';

/** Discord has no guests or external members: only roles (`access.groups`) and bots. */
export function discordMembership(api: DiscordApi): MembershipSource {
  return {
    async membership(worldId, userId, groups): Promise<Membership> {
      const world = parseWorldId(worldId) as { guildId?: string };
      // A DM has no guild, hence no roles: only `users` can let a person in there when the world lists anyone.
      if (world.guildId === undefined || world.guildId === '@me') return { guest: false, external: false, groups: [], bot: false };
      const member = await api.member(world.guildId, userId);
      return { guest: false, external: false, groups: member.roles.filter((role) => groups.includes(role)), bot: member.bot };
    },
  };
}

/**
 * Whether an interaction (a command, a button: approvals, Stop, install picks) may go on. A refused person gets
 * the note ephemerally, and nothing else happens; autocomplete just offers nothing.
 */
export async function admitInteraction(interaction: Interaction, access: Core['access'], worldId: string | undefined, direct: boolean): Promise<boolean> {
  if (worldId === undefined) return true;
  const what = interaction.isButton() || interaction.isStringSelectMenu() ? `click ${interaction.customId.split(':')[0] ?? ''}` : interaction.isCommand() || interaction.isAutocomplete() ? `command /${interaction.commandName}` : 'interaction';
  const checked = await access.check(worldId, interaction.user.id, what, direct);
  if (checked.allowed) return true;
  if (interaction.isAutocomplete()) await interaction.respond([]);
  else if (interaction.isRepliable()) await interaction.reply({ content: checked.note, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
  return false;
}
