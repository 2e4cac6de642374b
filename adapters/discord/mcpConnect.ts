// Asking someone to connect their account to an MCP server. Discord shows a message to one person only as the
// answer to their own interaction, so the thread gets a message naming them with a "Connect <server>" button
// (`connect:<server>:<userId>`), and the click is answered ephemerally with the link the core kept for them.
import { type ButtonInteraction, ButtonStyle, ComponentType, MessageFlags } from 'discord.js';
import { type Core, signInText } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import type { MessageBody } from './discordApi.ts';

/** In the style of `hitl:<approvalId>:<option>` and `stop:<turnId>`; a server name is `[a-z0-9_-]{1,32}`. */
export const CONNECT_PREFIX = 'connect:';

export function connectCustomId(server: string, userId: string): string {
  return `${CONNECT_PREFIX}${server}:${userId}`.slice(0, 100);
}

export function parseConnectId(value: string): { server: string; userId: string } | undefined {
  const match = /^connect:([a-z0-9_-]{1,32}):(\d{1,25})$/.exec(value);
  return match?.[1] && match[2] ? { server: match[1], userId: match[2] } : undefined;
}

/** The public message: who is asked, for which server, and that the link comes to them alone. Notifies them only. */
export function connectMessage(server: string, userId: string): MessageBody {
  return {
    content: `🔑 <@${userId}>, **${server}** needs you to connect your account before Claude can use it for you. Click below: the sign-in link is shown to you alone.`,
    components: [
      {
        type: ComponentType.ActionRow,
        components: [{ type: ComponentType.Button, custom_id: connectCustomId(server, userId), label: `Connect ${server}`, style: ButtonStyle.Primary }],
      },
    ],
    notify: [userId],
  };
}

export interface ConnectDeps {
  /** Absent when no MCP server is configured (a button left from an earlier configuration). */
  core: Pick<Core, 'mcp'>;
  log: Logger;
}

/**
 * A click on a Connect button, answered ephemerally. The person named gets their link. Anyone else gets their own
 * link only when a turn of theirs is waiting for the same server (it was kept for them too); otherwise they are told
 * the button is someone else's: a link is never lent, since it would sign the clicker's account in as that person.
 */
export async function answerConnectClick(interaction: ButtonInteraction, deps: ConnectDeps): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const say = async (content: string) => {
    await interaction.editReply({ content });
  };
  const parsed = parseConnectId(interaction.customId);
  if (parsed === undefined || deps.core.mcp === undefined) return say('This sign-in is no longer offered.');
  const { server, userId } = parsed;
  const clicker = interaction.user.id;
  const own = await deps.core.mcp.pendingLink(server, clicker);
  deps.log.info({ server, askedFor: userId, clicker, hasLink: own !== undefined }, 'MCP connect click');
  if (own !== undefined) return say(clicker === userId ? signInText(server, own) : `This button is for <@${userId}>, but Claude is waiting on ${server} for you too. ${signInText(server, own)}`);
  if (clicker !== userId) {
    return say(`This sign-in is for <@${userId}>: each person connects their own ${server} account. When Claude needs ${server} for you, you get a button of your own.`);
  }
  if (await deps.core.mcp.connected(server, clicker)) return say(`You are connected to ${server}.`);
  return say(`This sign-in link has lapsed (a link works for 10 minutes). Ask again, and you get a new one.`);
}
