// Where one turn's status line and answer go: channel messages, or a slash command's own reply.
import type { ChatInputCommandInteraction } from 'discord.js';
import type { Logger } from '../../src/ops/log.ts';
import type { ActivityWatch } from './chatActivity.ts';
import { type DiscordApi, discordErrorCode } from './discordApi.ts';

/** Where one turn's status and answer go. */
export interface Outlet {
  /** The channel the typing indicator shows in. */
  readonly channelId: string;
  /** Shows or updates the turn's one status line, with the turn's controls (its Stop button) under it. */
  status(text: string, components?: unknown[]): Promise<void>;
  /** Delivers the answer (already split to Discord's size); the status line is replaced or removed. */
  answer(chunks: string[]): Promise<void>;
  /** This instance stops before answering (another instance, or this one restarted, answers): tidy up. */
  interrupted(): Promise<void>;
  /** The turn is over, answered or not. */
  close?(): void;
}

/**
 * Ordinary channel messages: one status message for the turn, edited in place (progress, then the answer as it is
 * written), which becomes the answer's first part. When something else was posted below it meanwhile (an approval
 * question, a file), the next status comes as a new message below (the old one goes), so the turn's message is
 * always the last: the answer never lands above a question, and never shows twice.
 */
export class ChannelOutlet implements Outlet {
  #statusId: string | undefined;
  #watch: ActivityWatch | undefined;

  constructor(
    private readonly api: DiscordApi,
    readonly channelId: string,
    private readonly log: Logger,
    /** Told of every message posted, so a waiting command reply knows it is no longer the chat's last message. */
    private readonly posted: () => void = () => undefined,
    /** Watches what else is posted into the chat from now on. */
    private readonly watchChat?: () => ActivityWatch,
  ) {}

  async status(text: string, components?: unknown[]): Promise<void> {
    const body = { content: text, ...(components ? { components } : {}) };
    const earlier = this.#statusId;
    if (earlier !== undefined && this.#watch?.changed !== true) {
      try {
        await this.api.edit(this.channelId, earlier, body);
        return;
      } catch (error) {
        // Deleted by someone: post a new one.
        this.log.debug({ err: error }, 'editing the status message failed');
      }
    }
    this.#statusId = await this.#postWatched(body);
    if (earlier !== undefined) await this.api.remove(this.channelId, earlier).catch((error: unknown) => this.log.debug({ err: error }, 'removing the old status message failed'));
  }

  async answer(chunks: string[]): Promise<void> {
    const statusId = this.#statusId;
    this.#statusId = undefined;
    const inPlace = statusId !== undefined && this.#watch?.changed !== true;
    this.#watch?.stop();
    let rest = chunks;
    if (inPlace && chunks[0] !== undefined) {
      try {
        // Its Stop button goes with the edit.
        await this.api.edit(this.channelId, statusId, { content: chunks[0], components: [] });
        rest = chunks.slice(1);
      } catch (error) {
        this.log.debug({ err: error }, 'writing the answer into the status message failed; posting it');
      }
    }
    if (rest === chunks && statusId !== undefined) await this.api.remove(this.channelId, statusId).catch((error: unknown) => this.log.debug({ err: error }, 'removing the status message failed'));
    for (const chunk of rest) await this.post(chunk);
  }

  /** A status line left behind would say "working" forever: the turn's re-run shows its own. */
  async interrupted(): Promise<void> {
    const statusId = this.#statusId;
    this.#statusId = undefined;
    this.#watch?.stop();
    if (statusId !== undefined) await this.api.remove(this.channelId, statusId);
  }

  async post(content: string, components?: unknown[]): Promise<string> {
    const id = await this.api.post(this.channelId, { content, ...(components?.length ? { components } : {}) });
    this.posted();
    return id;
  }

  close(): void {
    this.#watch?.stop();
  }

  /** Posts the status message; what is posted after it from now on is watched. */
  async #postWatched(body: { content: string; components?: unknown[] }): Promise<string> {
    const id = await this.api.post(this.channelId, body);
    this.posted();
    this.#watch?.stop();
    this.#watch = this.watchChat?.();
    return id;
  }
}

/** Discord stops honouring an interaction's token after 15 minutes; stop using it a minute before. */
export const INTERACTION_TOKEN_MS = 15 * 60_000;
const TOKEN_MARGIN_MS = 60_000;
/** Unknown Webhook, Invalid Webhook Token: the token is gone for good. */
const DEAD_TOKEN_CODES = new Set([10015, 50027]);

/** What a command reply says when its answer comes as ordinary messages instead (another instance ran the turn). */
export const ANSWER_BELOW_TEXT = '↪️ The answer comes as a separate message below.';
/** What it says when this instance stops before the turn is answered: the queued message is answered later. */
export const STOPPED_TEXT = '⏸️ I stopped before answering. Your request is kept: the answer will come as a separate message below.';

/**
 * A slash command used in a chat that exists (a bot thread, a DM): the deferred reply is the status line and the
 * answer arrives through the interaction webhook while its token lives, then as ordinary channel messages.
 * `activity` is watched from the command on: anything the bot posts in the chat meanwhile (an approval question,
 * an earlier turn's answer) puts the answer below it rather than into the reply above.
 */
export class InteractionOutlet implements Outlet {
  #tokenDead = false;
  readonly channelId: string;

  constructor(
    private readonly interaction: ChatInputCommandInteraction,
    /** The deferred reply's message id, to edit it through the channel once the token is gone. */
    private readonly originalId: string | undefined,
    private readonly channel: ChannelOutlet,
    private readonly activity: ActivityWatch,
    private readonly api: DiscordApi,
    private readonly log: Logger,
  ) {
    this.channelId = channel.channelId;
  }

  /** When the token stops being trusted: the command's time plus 14 minutes. */
  get tokenDeadline(): number {
    return this.interaction.createdTimestamp + INTERACTION_TOKEN_MS - TOKEN_MARGIN_MS;
  }

  get #tokenUsable(): boolean {
    return !this.#tokenDead && Date.now() < this.tokenDeadline;
  }

  /** Runs a webhook call while the token is usable; false when it is not (the caller then uses the channel). */
  async #viaWebhook(call: () => Promise<unknown>): Promise<boolean> {
    if (!this.#tokenUsable) return false;
    try {
      await call();
      return true;
    } catch (error) {
      const code = discordErrorCode(error);
      if (code === undefined || !DEAD_TOKEN_CODES.has(code)) throw error;
      this.#tokenDead = true;
      this.log.info({ code }, 'the interaction token no longer works: using channel messages');
      return false;
    }
  }

  /** Without `components` the reply's buttons go: only a running turn's status line carries any. */
  async #setOriginal(content: string, components: unknown[] = []): Promise<boolean> {
    if (await this.#viaWebhook(() => this.interaction.editReply({ content, components: components as never }))) return true;
    if (this.originalId === undefined) return false;
    await this.api.edit(this.channelId, this.originalId, { content, components });
    return true;
  }

  async status(text: string, components?: unknown[]): Promise<void> {
    await this.#setOriginal(text, components);
  }

  async answer(chunks: string[]): Promise<void> {
    let rest = chunks;
    // The reply itself becomes the answer, unless an approval question now sits below it.
    if (!this.activity.changed && chunks[0] !== undefined && (await this.#setOriginal(chunks[0]))) rest = chunks.slice(1);
    else await this.#setOriginal('✅ Done: the answer is below.');
    for (const chunk of rest) {
      if (!(await this.#viaWebhook(() => this.interaction.followUp({ content: chunk })))) await this.channel.post(chunk);
    }
  }

  /** Replaces the reply's "thinking…" or status with a note (its answer will not come through it). */
  async note(text: string): Promise<void> {
    await this.#setOriginal(text);
  }

  async interrupted(): Promise<void> {
    await this.note(STOPPED_TEXT);
  }

  close(): void {
    this.activity.stop();
  }
}
