// The Core Home tab: the skills this person may run with `/skill` (descriptions, argument hints), their own
// live session approvals (the grants `skillbot grants list` shows), each with a Revoke button, and the MCP
// servers they signed in to, each with a Disconnect button (homeConnections.ts), their MCP tasks with Cancel
// (homeTasks.ts), and their routines and hooks (homeRoutines.ts).
import type { App as BoltApp } from '@slack/bolt';
import { z } from 'zod';
import type { Core, Grant, Skill } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import type { SlackBlock } from './slackBlock.ts';
import { routineBlocks } from './homeRoutines.ts';
import { connectionBlocks, disconnectClickSchema, HOME_MCP_DISCONNECT_ACTION_ID } from './homeConnections.ts';
import { taskBlocks } from './homeTasks.ts';
import type { HomeRefresh } from './taskCancel.ts';
import { slackThreadOf, slackWorldId } from './ids.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';

export const HOME_REVOKE_ACTION_ID = 'home_revoke_grant';
/** A Home view holds at most 100 blocks: room for the headers, the grants and this many skills. */
const MAX_SKILLS = 40;
const MAX_GRANTS = 40;

const homeOpenedSchema = z.object({ type: z.literal('app_home_opened'), user: z.string().min(1), channel: z.string().min(1), tab: z.string().optional() });
const revokeClickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  team: z.object({ id: z.string().min(1) }).nullable().optional(),
  actions: z.array(z.object({ action_id: z.literal(HOME_REVOKE_ACTION_ID), value: z.string() })).min(1),
});
const grantRefSchema = z.object({ chatId: z.string().min(1), skillId: z.string().min(1), requesterId: z.string().min(1) });

export interface AppHomeDeps {
  core: Core;
  api: SlackApi;
  logger: Logger;
}

const clip = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function skillBlocks(skills: readonly Skill[]): SlackBlock[] {
  const blocks: SlackBlock[] = [{ type: 'header', text: { type: 'plain_text', text: 'Skills you can use' } }];
  if (skills.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'No skills are available to you here.' }] });
  for (const skill of skills.slice(0, MAX_SKILLS)) {
    const hint = skill.argumentHint ? ` ${safeText(clip(skill.argumentHint, 40))}` : '';
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*\`${safeText(skill.id)}\`*${hint}\n${safeText(clip(skill.description, 280))}` } });
  }
  if (skills.length > MAX_SKILLS) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${skills.length - MAX_SKILLS} more: \`/skills\` lists them all.` }] });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'Run one with `/skill ID [args]`, or ask me in a DM or with an @mention.' }] });
  return blocks;
}

function describeGrant(grant: Grant, now: number): string {
  const thread = slackThreadOf(grant.chatId);
  const where = thread ? `<#${thread.channelId}>` : 'a chat';
  const hours = Math.max(1, Math.round((grant.expiresAt - now) / 3_600_000));
  return `*\`${safeText(grant.skillId)}\`* may run its code without asking in ${where} (thread ${thread?.threadTs ?? '?'}), for about ${hours} more hour${hours === 1 ? '' : 's'}`;
}

function grantBlocks(grants: readonly Grant[], now: number): SlackBlock[] {
  const blocks: SlackBlock[] = [
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Your session approvals' } },
  ];
  if (grants.length === 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'None. "Yes, for this session" on an approval adds one here.' }] });
  }
  for (const grant of grants.slice(0, MAX_GRANTS)) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: describeGrant(grant, now) },
      accessory: {
        type: 'button',
        action_id: HOME_REVOKE_ACTION_ID,
        text: { type: 'plain_text', text: 'Revoke' },
        value: JSON.stringify({ chatId: grant.chatId, skillId: grant.skillId, requesterId: grant.requesterId }),
      },
    });
  }
  return blocks;
}

/** The person's grants in this workspace, still live: the ones that let their requests run, or that they gave. */
async function ownGrants(grants: Core['grants'], teamId: string, userId: string): Promise<Grant[]> {
  return (await grants.list())
    .filter((grant) => (grant.requesterId === userId || grant.grantedBy === userId) && grant.worldId.startsWith(`slack:${teamId}:`))
    .sort((a, b) => a.grantedAt - b.grantedAt);
}

async function publish(deps: AppHomeDeps, grants: Core['grants'], teamId: string, userId: string, dmChannel: string | undefined): Promise<void> {
  // The Home tab belongs to the DM with the bot: its world says which skills the person may run from there.
  const skills = dmChannel ? deps.core.skills.forWorld(slackWorldId(teamId, dmChannel)) : [];
  const blocks = [...skillBlocks(skills), ...grantBlocks(await ownGrants(grants, teamId, userId), Date.now()), ...(await connectionBlocks(deps.core.mcp, userId)), ...(await taskBlocks(deps.core.mcp, teamId, userId)), ...(await routineBlocks(deps.core, teamId, userId))];
  await deps.api.publishHome({ userId, blocks });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function registerAppHome(bolt: BoltApp, deps: AppHomeDeps): HomeRefresh {
  // The app's own grants: the same store key and MAC key as the approvals that made them.
  const grants = deps.core.grants;
  /** The DM channel of each person seen opening the Home tab (a Revoke click does not carry it). */
  const dmOf = new Map<string, string>();

  bolt.event('app_home_opened', async ({ event, context }) => {
    const parsed = homeOpenedSchema.safeParse(event);
    const teamId = context.teamId;
    if (!parsed.success || !teamId || (parsed.data.tab !== undefined && parsed.data.tab !== 'home')) return;
    dmOf.set(`${teamId}:${parsed.data.user}`, parsed.data.channel);
    await publish(deps, grants, teamId, parsed.data.user, parsed.data.channel).catch((error: unknown) =>
      deps.logger.warn({ err: slackErrorCode(error) }, 'publishing the Home tab failed'),
    );
  });

  bolt.action(HOME_REVOKE_ACTION_ID, async ({ ack, body, context }) => {
    await ack();
    const parsed = revokeClickSchema.safeParse(body);
    const ref = parsed.success ? grantRefSchema.safeParse(parseJson(parsed.data.actions[0]?.value ?? '')) : undefined;
    const teamId = context.teamId ?? (parsed.success ? parsed.data.team?.id : undefined);
    if (!parsed.success || !ref?.success || !teamId) {
      deps.logger.warn('malformed Home tab click ignored');
      return;
    }
    const userId = parsed.data.user.id;
    // Only one's own approvals: the button of another person's grant is never on this person's Home.
    const mine = (await ownGrants(grants, teamId, userId)).some(
      (grant) => grant.chatId === ref.data.chatId && grant.skillId === ref.data.skillId && grant.requesterId === ref.data.requesterId,
    );
    if (mine) {
      const removed = await grants.revoke(ref.data);
      deps.logger.info({ chatId: ref.data.chatId, skill: ref.data.skillId, by: userId, removed }, 'session grant revoked from the Home tab');
    }
    await publish(deps, grants, teamId, userId, dmOf.get(`${teamId}:${userId}`)).catch((error: unknown) =>
      deps.logger.warn({ err: slackErrorCode(error) }, 'publishing the Home tab failed'),
    );
  });

  bolt.action(HOME_MCP_DISCONNECT_ACTION_ID, async ({ ack, body, context }) => {
    await ack();
    const parsed = disconnectClickSchema.safeParse(body);
    const teamId = context.teamId ?? (body as { team?: { id?: string } | null }).team?.id;
    if (!parsed.success || !teamId) {
      deps.logger.warn('malformed Home tab click ignored');
      return;
    }
    // The clicker's own sign-in, whatever the button says: nobody disconnects another person.
    const userId = parsed.data.user.id;
    await deps.core.mcp?.disconnect(parsed.data.actions[0]!.value, userId);
    await publish(deps, grants, teamId, userId, dmOf.get(`${teamId}:${userId}`)).catch((error: unknown) =>
      deps.logger.warn({ err: slackErrorCode(error) }, 'publishing the Home tab failed'),
    );
  });

  return {
    refresh: (teamId, userId) =>
      publish(deps, grants, teamId, userId, dmOf.get(`${teamId}:${userId}`)).catch((error: unknown) => deps.logger.warn({ err: slackErrorCode(error) }, 'publishing the Home tab failed')),
  };
}
