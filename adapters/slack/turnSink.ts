// A turn's TurnSink in a Slack thread: the turn's one message (turnMessage.ts) and, in an assistant thread,
// Slack's own status line under it.
import type { Logger } from '../../src/ops/log.ts';
import type { OutgoingFile, TurnSink } from '../../src/platform/index.ts';
import type { StreamingSupport } from './answerStream.ts';
import type { MessageMemory } from './liveMessage.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import { type ThreadTarget, TurnMessage } from './turnMessage.ts';

export { PLACEHOLDER_TEXT, type ThreadTarget } from './turnMessage.ts';

const BUSY_TEXT = 'Claude is busy; trying again…';

export interface ThreadReplyOptions {
  /** Where streaming was refused; without it the turn's message is always shown through edits. */
  streaming?: StreamingSupport;
  /** Set Slack's assistant status line (assistant threads: the bot's DMs, the split view). */
  status?: boolean;
}

export class SlackTurnSink implements TurnSink {
  readonly #message: TurnMessage;
  #status = '';
  #statusCall: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: SlackApi,
    private readonly target: ThreadTarget,
    private readonly logger: Logger,
    private readonly options: ThreadReplyOptions = {},
    /** Where the turn's message is remembered, so a re-run (its first instance died) shows in the same one. */
    memory?: MessageMemory,
  ) {
    this.#message = new TurnMessage(api, target, logger, options.streaming, memory);
  }

  /** Shows the turn's message at once, so the person sees the bot took the message and can stop it. */
  open(): void {
    this.#message.open();
    this.#setStatus('is working…');
  }

  progress(text: string): void {
    this.#message.progress(text);
    this.#setStatus(text);
  }

  partial(delta: string): void {
    this.#message.write(delta);
  }

  retrying(): void {
    this.#message.retrying(BUSY_TEXT);
  }

  /** A file a skill script made, into the thread. Throws when Slack refuses it (the model is told). */
  async upload(file: OutgoingFile): Promise<void> {
    await this.api.uploadFile({ channel: this.target.channel, threadTs: this.target.threadTs, name: file.name, bytes: file.bytes, title: file.title });
  }

  /** "Stopped by @person." under what was written so far (a mention, which the Markdown path would neutralise). */
  async stopped(userId: string): Promise<void> {
    const notice = /^[UW][A-Z0-9]{2,}$/.test(userId) ? `Stopped by <@${userId}>.` : `Stopped by ${safeText(userId)}.`;
    this.#setStatus('');
    await this.#message.stopped(notice);
    await this.#statusCall;
  }

  /** Never throws: a message that cannot be posted is logged (the turn itself is over either way). */
  async reply(markdown: string): Promise<void> {
    this.#setStatus('');
    await this.#message.finish(markdown);
    await this.#statusCall;
  }

  /** Slack's status line under the thread ("skillbot is working…"), set in order, '' clears it. */
  #setStatus(status: string): void {
    if (!this.options.status || status === this.#status) return;
    this.#status = status;
    const { channel, threadTs } = this.target;
    this.#statusCall = this.#statusCall
      .then(() => this.api.setStatus({ channel, threadTs, status }))
      .catch((error: unknown) => this.logger.info({ err: slackErrorCode(error) }, 'setting the assistant status failed'));
  }
}
