import { type ButtonInteraction, MessageFlags } from 'discord.js';
import { type ApprovalRuntime, SYSTEM_DECIDERS } from '../../src/hitl/approvals.ts';
import type { ApprovalPresenter, ApprovalRecord, ResponseResult } from '../../src/hitl/types.ts';
import type { Logger } from '../../src/log.ts';
import { describeOutcome, parseCustomId, questionMessage, resolvedMessage } from './approvalMessage.ts';
import type { ChatActivity } from './chatActivity.ts';
import type { DiscordApi } from './discordApi.ts';
import { channelFactsOf, channelOfChat, locate, type ThreadDirectory, worldOf } from './places.ts';

type PrivateReply = (text: string) => Promise<void>;

/**
 * Puts approval questions into the chat's thread (or DM) as a message with buttons, and edits it once resolved.
 * `platformRef` is `<channelId>:<messageId>`, so any instance can edit the message.
 */
export class DiscordApprovalPresenter implements ApprovalPresenter {
  /** While a click is being answered, what the runtime tells its user privately goes into the click's ephemeral reply. */
  readonly #clicks = new Map<string, PrivateReply>();
  /** Questions this instance showed that are still open, with their platformRef. */
  readonly #open = new Map<string, ApprovalRecord>();

  constructor(
    private readonly api: DiscordApi,
    private readonly activity: ChatActivity,
    private readonly log: Logger,
  ) {}

  async present(record: ApprovalRecord): Promise<string | undefined> {
    const channelId = channelOfChat(record.chatId);
    const messageId = await this.api.post(channelId, questionMessage(record));
    this.activity.posted(record.chatId);
    const platformRef = `${channelId}:${messageId}`;
    this.#open.set(record.id, { ...record, platformRef });
    return platformRef;
  }

  async resolved(record: ApprovalRecord): Promise<void> {
    this.#open.delete(record.id);
    const [channelId, messageId] = (record.platformRef ?? '').split(':');
    if (!channelId || !messageId) return;
    await this.api.edit(channelId, messageId, resolvedMessage(record));
  }

  async tellPrivately(record: ApprovalRecord, userId: string, text: string): Promise<void> {
    const key = `${record.id}:${userId}`;
    const reply = this.#clicks.get(key);
    if (reply) {
      this.#clicks.delete(key);
      await reply(text);
      return;
    }
    // Not from a click of this instance: a DM is the private place left.
    const dm = await this.api.openDm(userId);
    await this.api.post(dm, { content: text });
  }

  /**
   * The bot is stopping: the questions it still waits on will lapse as soon as the app closes, when the gateway
   * and the REST token are already gone. Say so in them now and take their buttons away.
   */
  async lapseOpen(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    const lapsed = (record: ApprovalRecord): ApprovalRecord => ({
      ...record,
      status: 'resolved',
      outcome: 'expired',
      option: record.defaultOption,
      decidedBy: SYSTEM_DECIDERS.shutdown,
    });
    await Promise.all(
      open.map((record) => this.resolved(lapsed(record)).catch((error: unknown) => this.log.warn({ err: error, approvalId: record.id }, 'marking an approval lapsed failed'))),
    );
  }

  /** Runs `respond` with private notes for this user routed to `reply`; tells whether one was sent. */
  async duringClick(approvalId: string, userId: string, reply: PrivateReply, respond: () => Promise<ResponseResult>): Promise<{ result: ResponseResult; told: boolean }> {
    const key = `${approvalId}:${userId}`;
    this.#clicks.set(key, reply);
    try {
      const result = await respond();
      return { result, told: !this.#clicks.has(key) };
    } finally {
      this.#clicks.delete(key);
    }
  }
}

const REPLIES: Record<Exclude<ResponseResult['kind'], 'accepted' | 'already_resolved' | 'not_allowed'>, string> = {
  not_found: 'This approval is no longer open (it ended, or it is too old).',
  wrong_world: 'This approval belongs to another channel.',
  invalid_option: 'That is not one of the choices of this approval.',
};

export interface ClickDeps {
  approvals: ApprovalRuntime;
  presenter: DiscordApprovalPresenter;
  threads: ThreadDirectory;
  log: Logger;
}

/**
 * A click on `hitl:<id>:<option>`. Acknowledged at once (the 3-second rule), then checked by the runtime:
 * exists, pending, this channel, the clicker may approve. The requester's answer edits the question (through the
 * presenter); anyone else gets an ephemeral reply and the question stays open.
 */
export async function answerApprovalClick(interaction: ButtonInteraction, deps: ClickDeps): Promise<void> {
  await interaction.deferUpdate();
  const ephemeral = async (content: string) => {
    await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
  };
  const parsed = parseCustomId(interaction.customId);
  const worldId = worldOf(await locate(channelFactsOf(interaction.channel, interaction.channelId, interaction.guildId), deps.threads));
  if (!parsed || worldId === undefined) {
    await ephemeral(REPLIES.not_found);
    return;
  }
  const { result, told } = await deps.presenter.duringClick(parsed.approvalId, interaction.user.id, ephemeral, () =>
    deps.approvals.respond({ worldId, approvalId: parsed.approvalId, option: parsed.option, userId: interaction.user.id }),
  );
  deps.log.info({ approvalId: parsed.approvalId, option: parsed.option, userId: interaction.user.id, result: result.kind }, 'approval click');
  switch (result.kind) {
    case 'accepted':
      return;
    case 'already_resolved':
      await ephemeral(`Already answered: ${describeOutcome(result.record)}`);
      return;
    case 'not_allowed':
      // The runtime told the clicker why (through tellPrivately); say it here if that did not reach them.
      if (!told) await ephemeral("Only the person who asked, or one of this channel's approvers, can answer this approval.");
      return;
    case 'not_found':
      await ephemeral(REPLIES.not_found);
      // Its buttons would only ever answer "not found": take them away.
      await interaction.editReply({ components: [] }).catch((error: unknown) => deps.log.debug({ err: error }, 'removing stale buttons failed'));
      return;
    default:
      await ephemeral(REPLIES[result.kind]);
  }
}
