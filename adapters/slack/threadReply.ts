// A turn's TurnSink in a Slack thread: progress in the placeholder, then the answer as mrkdwn, split to fit.
import type { Logger } from '../../src/log.ts';
import type { TurnSink } from '../../src/platform.ts';
import { LiveMessage, type PlaceholderMemory } from './liveMessage.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import { SLACK_TEXT_LIMIT, splitMrkdwn } from './splitMessage.ts';

export const PLACEHOLDER_TEXT = '_Working on it…_';
/** How much of the streamed answer the placeholder previews. */
const PREVIEW_CHARS = 1500;

export class ThreadReply implements TurnSink {
  readonly #live: LiveMessage;
  #draft = '';

  constructor(
    private readonly api: SlackApi,
    private readonly channel: string,
    private readonly threadTs: string,
    private readonly logger: Logger,
  ) {
    this.#live = new LiveMessage(api, channel, threadTs, logger);
  }

  /** Posts the placeholder at once, so the person sees the bot took the message (or reuses an earlier run's). */
  open(memory?: PlaceholderMemory): void {
    this.#live.open(PLACEHOLDER_TEXT, memory);
  }

  progress(text: string): void {
    this.#draft = '';
    this.#live.show(`_${safeText(text)}_`);
  }

  partial(delta: string): void {
    this.#draft += delta;
    const tail = this.#draft.length > PREVIEW_CHARS ? `…${this.#draft.slice(-PREVIEW_CHARS)}` : this.#draft;
    this.#live.show(`${markdownToMrkdwn(tail)} …`.slice(0, SLACK_TEXT_LIMIT));
  }

  retrying(): void {
    this.#draft = '';
    this.#live.show('_Claude is busy; trying again…_');
  }

  /** Never throws: a message that cannot be posted is logged (the turn itself is over either way). */
  async reply(markdown: string): Promise<void> {
    const [first = '', ...rest] = splitMrkdwn(markdownToMrkdwn(markdown));
    const replaced = await this.#live.finish(first);
    const parts = replaced ? rest : [first, ...rest];
    for (const [index, text] of parts.entries()) {
      try {
        await this.api.post({ channel: this.channel, threadTs: this.threadTs, text });
      } catch (error) {
        this.logger.error({ err: slackErrorCode(error), part: index }, 'posting the answer failed');
        return;
      }
    }
  }
}
