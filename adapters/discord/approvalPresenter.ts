// Puts approval questions into Discord threads (or DMs) and edits them once resolved, from any instance.
import { type ApprovalPresenter, type ApprovalRecord, type ResponseResult, SYSTEM_DECIDERS } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { questionMessage, resolvedMessage } from './approvalCard.ts';
import type { ChatActivity } from './chatActivity.ts';
import type { DiscordApi } from './discordApi.ts';
import { channelOfChat } from './places.ts';

export type PrivateReply = (text: string) => Promise<void>;

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
