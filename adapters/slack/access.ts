// Who may use the bot, the Slack side: what Slack says of a person (users.info, usergroups.users.list), kept
// current by its change events, and the check on every command, click and Home tab before any listener runs.
import type { App as BoltApp, Middleware, AnyMiddlewareArgs } from '@slack/bolt';
import { type Core, type Membership, type MembershipSource, parseWorldId } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { slackWorldId } from './ids.ts';
import { slackErrorCode, type Identity, type SlackApi } from './slackApi.ts';

/** How long a user group's member list is kept (usergroups.users.list is Tier 2: about 20 calls a minute). */
const GROUP_TTL_MS = 5 * 60_000;

/**
 * Slack's facts of a person: guest (restricted or single-channel), external (Slack Connect from elsewhere), and
 * which listed user groups they are in. A group's member list is read once per 5 minutes for everyone (not once
 * per person), and again at once after `forgetGroups` (its change events).
 */
export function slackMembership(api: SlackApi, self: Identity, now: () => number = Date.now): MembershipSource & { forgetGroups(): void } {
  const groups = new Map<string, { members: Promise<Set<string>>; until: number }>();
  const membersOf = (group: string): Promise<Set<string>> => {
    const kept = groups.get(group);
    if (kept && kept.until > now()) return kept.members;
    const members = api.groupMembers(group).then((ids) => new Set(ids));
    // A failed read is not kept: the next check asks again.
    members.catch(() => groups.delete(group));
    groups.set(group, { members, until: now() + GROUP_TTL_MS });
    return members;
  };
  return {
    forgetGroups: () => groups.clear(),
    async membership(worldId, userId, asked): Promise<Membership> {
      const facts = await api.userFacts(userId);
      const { teamId } = parseWorldId(worldId) as { teamId: string };
      const sameOrg = self.enterpriseId !== undefined && facts.enterpriseId === self.enterpriseId;
      const member = await Promise.all(asked.map(async (group) => ((await membersOf(group)).has(userId) ? group : undefined)));
      return {
        guest: facts.restricted || facts.ultraRestricted,
        external: facts.teamId !== undefined && facts.teamId !== teamId && facts.teamId !== self.teamId && !sameOrg,
        groups: member.filter((group): group is string => group !== undefined),
        bot: facts.bot,
      };
    },
  };
}

interface GuardDeps {
  core: Core;
  api: SlackApi;
  logger: Logger;
}

/** The person and channel of a command, a click or a Home tab; undefined for what the guard leaves alone. */
function whoWhere(body: Record<string, unknown>): { userId: string; teamId: string; channelId: string; kind: string } | undefined {
  const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  if (str(body.command) !== undefined) {
    const userId = str(body.user_id);
    const teamId = str(body.team_id);
    const channelId = str(body.channel_id);
    return userId && teamId && channelId ? { userId, teamId, channelId, kind: `command ${String(body.command)}` } : undefined;
  }
  if (body.type === 'block_actions') {
    const user = body.user as { id?: string; team_id?: string } | undefined;
    const teamId = str((body.team as { id?: string } | null | undefined)?.id) ?? str(user?.team_id);
    const channelId = str((body.channel as { id?: string } | undefined)?.id) ?? str((body.container as { channel_id?: string } | undefined)?.channel_id);
    const actions = body.actions as Array<{ action_id?: string }> | undefined;
    return user?.id && teamId && channelId ? { userId: user.id, teamId, channelId, kind: `click ${actions?.[0]?.action_id ?? ''}` } : undefined;
  }
  const event = body.event as { type?: string; user?: string; channel?: string } | undefined;
  const teamId = str(body.team_id);
  if (event?.type === 'app_home_opened' && event.user && event.channel && teamId) return { userId: event.user, teamId, channelId: event.channel, kind: 'app home' };
  return undefined;
}

/**
 * Runs before every listener: a command, a button click (an approval, an install review, Stop) or the Home tab
 * of a person the world refuses goes no further. They are told privately; the click changes nothing.
 */
function accessGuard(deps: GuardDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as unknown as Record<string, unknown>;
    const at = whoWhere(body);
    if (at === undefined) return args.next();
    const worldId = slackWorldId(at.teamId, at.channelId);
    const checked = await deps.core.access.check(worldId, at.userId, at.kind, at.channelId.startsWith('D'));
    if (checked.allowed) return args.next();
    const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
    if (body.command !== undefined) return void (await ack?.({ response_type: 'ephemeral', text: checked.note }));
    await ack?.();
    try {
      if (body.type === 'block_actions') await deps.api.postEphemeral({ channel: at.channelId, user: at.userId, text: checked.note });
      else await deps.api.publishHome({ userId: at.userId, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: checked.note } }] });
    } catch (error) {
      deps.logger.warn({ err: slackErrorCode(error), worldId }, 'telling a refused person failed');
    }
  };
}

/** Registers the guard (first, so it runs before every listener) and the change events that refresh the facts. */
export function registerAccess(bolt: BoltApp, deps: GuardDeps, self: Identity): void {
  const membership = slackMembership(deps.api, self);
  deps.core.access.register('slack', membership);
  bolt.use(accessGuard(deps));
  // The source's own group lists are dropped through `forgetGroups` (here and on every other instance).
  const groupsChanged = () => deps.core.access.forgetGroups();
  bolt.event('user_change', async ({ event }) => deps.core.access.forgetUser((event as { user?: { id?: string } }).user?.id ?? ''));
  bolt.event('subteam_members_changed', groupsChanged);
  bolt.event('subteam_updated', groupsChanged);
}
