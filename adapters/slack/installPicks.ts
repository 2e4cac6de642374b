// Picking skills of a collection on its install card: a multi-select (`install_pick`, the card's approval id in
// its block id `pick:<approvalId>`). A pick closes the card and the core asks anew, on a new card, for exactly
// the skills picked; "Yes" on a card installs only what that card lists.
import type { App as BoltApp, types } from '@slack/bolt';
import { z } from 'zod';
import type { ApprovalRecord, Core, DeliveryDedupe } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { parseMessageRef, slackWorldId } from './ids.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import type { BackgroundTasks } from './tasks.ts';

export const INSTALL_PICK_ACTION_ID = 'install_pick';
const BLOCK_PREFIX = 'pick:';
/** Slack's bounds on a static multi-select: 100 options, 75 characters of option text. */
const MAX_OPTIONS = 100;
const MAX_OPTION_TEXT = 75;

const mention = (id: string) => (/^[UW][A-Z0-9]{2,}$/.test(id) ? `<@${id}>` : safeText(id));

/** The picker of a card that offers picks (none when it offers one thing, or more than Slack can list). */
export function pickBlocks(record: ApprovalRecord): types.KnownBlock[] {
  const picks = record.picks;
  if (picks === undefined || picks.choices.length < 2) return [];
  if (picks.choices.length > MAX_OPTIONS || picks.choices.some((id) => id.length > MAX_OPTION_TEXT)) {
    return [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'Too many skills to pick from here: ask again with `--skill NAME` for the ones wanted.' }] }];
  }
  const option = (id: string) => ({ text: { type: 'plain_text' as const, text: id }, value: id });
  return [
    {
      type: 'section',
      block_id: `${BLOCK_PREFIX}${record.id}`,
      text: { type: 'mrkdwn', text: `*Skills to install* (${picks.picked.length} of ${picks.choices.length}): pick to narrow; a new card then lists exactly those.` },
      accessory: {
        type: 'multi_static_select',
        action_id: INSTALL_PICK_ACTION_ID,
        placeholder: { type: 'plain_text', text: 'Pick skills' },
        options: picks.choices.map(option),
        initial_options: picks.picked.map(option),
      },
    },
  ];
}

/** How a card closed by a pick reads. */
export function repickedText(repicked: { by: string; picked: string[] }): string {
  return `:twisted_rightwards_arrows: Replaced: ${mention(repicked.by)} picked ${repicked.picked.map((id) => `\`${safeText(id)}\``).join(', ')}; the card below asks for exactly those. Nothing was installed from this one.`;
}

const pickSchema = z.object({
  type: z.literal('block_actions'),
  trigger_id: z.string().optional(),
  user: z.object({ id: z.string().min(1), team_id: z.string().optional() }),
  team: z.object({ id: z.string().min(1) }).nullable().optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().optional(), message_ts: z.string().optional(), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), block_id: z.string(), action_ts: z.string().optional(), selected_options: z.array(z.object({ value: z.string() })).max(MAX_OPTIONS) })).min(1),
});

export interface PickDeps {
  core: Core;
  api: SlackApi;
  dedupe: DeliveryDedupe;
  tasks: BackgroundTasks;
  logger: Logger;
}

export function registerInstallPicks(bolt: BoltApp, deps: PickDeps): void {
  bolt.action(INSTALL_PICK_ACTION_ID, async ({ ack, body, context }) => {
    await ack();
    const parsed = pickSchema.safeParse(body);
    const action = parsed.data?.actions[0];
    if (!parsed.success || action === undefined || !action.block_id.startsWith(BLOCK_PREFIX)) {
      deps.logger.warn({ issue: parsed.error?.issues[0]?.message }, 'malformed Slack pick payload ignored');
      return;
    }
    const payload = parsed.data;
    const teamId = payload.team?.id ?? payload.user.team_id ?? context.teamId;
    const channelId = payload.container?.channel_id ?? payload.channel?.id;
    const messageTs = payload.container?.message_ts;
    if (!teamId || !channelId || !messageTs) return;
    const approvalId = action.block_id.slice(BLOCK_PREFIX.length);
    const userId = payload.user.id;
    const threadTs = payload.container?.thread_ts;
    deps.tasks.run('install pick', async () => {
      const delivery = await deps.dedupe.take([`pick:${payload.trigger_id ?? `${userId}:${action.action_ts ?? messageTs}`}`]);
      if (delivery === undefined) return;
      try {
        const stored = await deps.core.approvals.record(approvalId);
        const shownIn = parseMessageRef(stored?.platformRef);
        // A payload naming another message (a copied block, a forged request) must not change this card.
        const mismatch = shownIn !== undefined && (shownIn.channelId !== channelId || shownIn.ts !== messageTs);
        const result = mismatch
          ? { ok: false, text: 'That pick does not belong to this card, so it changed nothing.' }
          : await deps.core.install.pick({ worldId: slackWorldId(teamId, channelId), approvalId, userId, ids: action.selected_options.map((option) => option.value) });
        if (!result.ok) await deps.api.postEphemeral({ channel: channelId, user: userId, text: safeText(result.text), ...(threadTs ? { threadTs } : {}) });
      } catch (error) {
        deps.logger.error({ err: slackErrorCode(error), approvalId }, 'handling an install pick failed');
      }
      await delivery.done();
    });
  });
}
