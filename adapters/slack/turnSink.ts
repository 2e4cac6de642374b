// A turn's TurnSink in a Slack thread. While it works: a progress message with a Stop button (and, in an
// assistant thread, Slack's own status line). Each round of text the model writes is streamed as its own message
// where the workspace allows it (text written before a tool call stays as written; the answer's message goes on
// through a retried model call, and a re-run of the turn takes over the messages its earlier run left), and the
// progress message goes once the answer stands. Where streaming is refused the answer is previewed in the
// progress message through throttled edits and finally written over it as mrkdwn, split to fit.
import type { Logger } from '../../src/log.ts';
import type { OutgoingFile, TurnSink } from '../../src/platform.ts';
import { AnswerStream, previewText, type StreamingSupport } from './answerStream.ts';
import { LiveMessage, type PlaceholderMemory } from './liveMessage.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import { SLACK_MESSAGES } from './messageLimits.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';
import { progressBlocks } from './turnControls.ts';

export const PLACEHOLDER_TEXT = '_Working on it…_';
const WRITING_TEXT = '_Writing the answer…_';
const BUSY_TEXT = '_Claude is busy; trying again…_';
/** What a round's stream memory holds while its stream is being started (its ts not known yet). */
const STARTING = 'starting';
/** The newest `latest` a thread read can name: everything so far. */
const LATEST = '9999999999.999999';

/** Who and where the turn answers. */
export interface ThreadTarget {
  channel: string;
  threadTs: string;
  teamId: string;
  /** The person whose message started the turn (a streamed answer outside a DM is addressed to them). */
  userId: string;
  turnId: string;
}

export interface ThreadReplyOptions {
  /** Where streaming was refused; without it the answer is always previewed through edits. */
  streaming?: StreamingSupport;
  /** Set Slack's assistant status line (assistant threads: the bot's DMs, the split view). */
  status?: boolean;
}

/** Where a turn keeps the message each round of its text was streamed into (round 0 is the first text written). */
export type StreamMemory = (round: number) => PlaceholderMemory;

export class SlackTurnSink implements TurnSink {
  readonly #live: LiveMessage;
  /** The current round's text. */
  #draft = '';
  /** Rounds of text ended by a tool call (the round the next text belongs to). */
  #round = 0;
  /** Where streaming is not used: text of earlier rounds, kept to lead the answer the placeholder becomes. */
  #said: string[] = [];
  #stream: AnswerStream | undefined;
  /** Streams of earlier rounds, ended when a tool call came after their text (they stay as messages). */
  #ending: Array<Promise<unknown>> = [];
  #status = '';
  #streamMemory: StreamMemory | undefined;
  #statusCall: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: SlackApi,
    private readonly target: ThreadTarget,
    private readonly logger: Logger,
    private readonly options: ThreadReplyOptions = {},
  ) {
    this.#live = new LiveMessage(api, target.channel, target.threadTs, logger, (text) => progressBlocks(text, target.turnId));
  }

  /**
   * Posts the placeholder at once, so the person sees the bot took the message (or reuses an earlier run's).
   * `streamMemory` keeps the messages the turn's rounds were streamed into: a re-run (its first instance died
   * mid-answer) writes each round into the same message again, so the thread holds every text once.
   */
  open(memory?: PlaceholderMemory, streamMemory?: StreamMemory): void {
    const placeholder: PlaceholderMemory | undefined = memory && {
      get: async () => {
        const held = await memory.get();
        return held === STARTING ? this.#findPlaceholder() : held;
      },
      set: (ts) => memory.set(ts),
      starting: () => memory.set(STARTING),
    };
    this.#live.open(PLACEHOLDER_TEXT, placeholder);
    this.#setStatus('is working…');
    this.#streamMemory = streamMemory;
  }

  progress(text: string): void {
    this.#endRound();
    this.#live.show(`_${safeText(text)}_`);
    this.#setStatus(text);
  }

  partial(delta: string): void {
    this.#draft += delta;
    const streaming = this.options.streaming;
    if (streaming?.allowed(this.target.teamId) && !this.#stream?.unusable) {
      if (!this.#stream) {
        const memory = this.#streamMemory?.(this.#round);
        const adopt = this.#earlierStream(this.#round).catch(() => undefined);
        const remember = (ts: string) => void memory?.set(ts).catch((error: unknown) => this.logger.warn({ err: error }, 'remembering the streamed answer failed'));
        const starting = async () => {
          await memory?.set(STARTING).catch((error: unknown) => this.logger.warn({ err: error }, 'remembering the stream start failed'));
        };
        this.#stream = new AnswerStream(this.api, this.target, streaming, this.logger, remember, adopt, starting);
        this.#live.show(WRITING_TEXT);
      }
      this.#stream.append(delta);
      if (!this.#stream.unusable) return;
    }
    this.#live.show(previewText([...this.#said, this.#draft].join('\n\n')));
  }

  retrying(): void {
    // The round's text so far is void: a stream keeps its message for the retried text, which continues it.
    this.#stream?.retry();
    this.#draft = '';
    this.#live.show(BUSY_TEXT);
  }

  /** A file a skill script made, into the thread. Throws when Slack refuses it (the model is told). */
  async upload(file: OutgoingFile): Promise<void> {
    await this.api.uploadFile({ channel: this.target.channel, threadTs: this.target.threadTs, name: file.name, bytes: file.bytes, title: file.title });
  }

  /** "Stopped by @person." in place of the placeholder (a mention, which the Markdown path would neutralise). */
  async stopped(userId: string): Promise<void> {
    const text = /^[UW][A-Z0-9]{2,}$/.test(userId) ? `Stopped by <@${userId}>.` : `Stopped by ${safeText(userId)}.`;
    // What was streamed so far stays as written; the status line goes.
    this.#endRound();
    this.#setStatus('');
    await Promise.all(this.#ending);
    if (await this.#live.finish(text)) return;
    await this.api.post({ channel: this.target.channel, threadTs: this.target.threadTs, text }).catch((error: unknown) => this.logger.error({ err: slackErrorCode(error) }, 'posting the stop notice failed'));
  }

  /** Never throws: a message that cannot be posted is logged (the turn itself is over either way). */
  async reply(markdown: string): Promise<void> {
    this.#setStatus('');
    await Promise.all(this.#ending);
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream) {
      // The answer's own message holds it, or is written over with it: never a second copy.
      const [first = '', ...rest] = splitMessage(markdownToMrkdwn(markdown), SLACK_MESSAGES);
      const end = await stream.finish(markdown);
      if (end === 'held' || (end === 'replace' && (await stream.replaceWith(first)))) {
        if (end === 'replace') await this.#postParts(rest);
        await this.#live.remove('_Done._');
        await this.#statusCall;
        return;
      }
    }
    const whole = [...this.#said, markdown].join('\n\n');
    const [first = '', ...rest] = splitMessage(markdownToMrkdwn(whole), SLACK_MESSAGES);
    const replaced = await this.#live.finish(first);
    await this.#postParts(replaced ? rest : [first, ...rest]);
    await this.#statusCall;
  }

  async #postParts(parts: string[]): Promise<void> {
    for (const [index, text] of parts.entries()) {
      try {
        await this.api.post({ channel: this.target.channel, threadTs: this.target.threadTs, text });
      } catch (error) {
        this.logger.error({ err: slackErrorCode(error), part: index }, 'posting the answer failed');
        break;
      }
    }
  }

  /**
   * The message an earlier run of this turn streamed round `round` into, if any. When that run died between
   * starting the stream and remembering its ts, the message is the bot's first one without controls after the
   * previous round's message (the placeholder for round 0) in the thread.
   */
  async #earlierStream(round: number): Promise<string | undefined> {
    const held = await this.#streamMemory?.(round).get();
    if (held !== STARTING) return held;
    const after = round === 0 ? await this.#live.ts() : await this.#streamMemory?.(round - 1).get();
    if (after === undefined || after === STARTING) return undefined;
    const { channel, threadTs } = this.target;
    const found = await this.api.threadMessages(channel, threadTs, LATEST, after, 1).catch(() => []);
    return found.find((message) => message.ts !== undefined && message.ts !== threadTs && message.bot_id !== undefined && !message.blocks?.length)?.ts;
  }

  /**
   * The placeholder an earlier run of this turn was posting when it died (before it could remember its ts): the
   * bot's message in the thread whose Stop button names this turn, if Slack got it.
   */
  async #findPlaceholder(): Promise<string | undefined> {
    const { channel, threadTs, turnId } = this.target;
    const messages = await this.api.threadMessages(channel, threadTs, LATEST).catch(() => []);
    return messages.find((message) => message.bot_id !== undefined && message.ts !== undefined && JSON.stringify(message.blocks ?? []).includes(`"value":"${turnId}"`))?.ts;
  }

  /** A tool call follows text the model wrote: that text stays as a message of its own, as written. */
  #endRound(): void {
    const stream = this.#stream;
    this.#stream = undefined;
    if (this.#draft.trim() !== '') {
      this.#round += 1;
      if (!stream || stream.unusable) this.#said.push(this.#draft.trim());
    }
    this.#draft = '';
    if (!stream) return;
    this.#ending.push(
      stream
        .finish()
        .then((end) => (end === 'replace' ? stream.replaceWith(markdownToMrkdwn(stream.text)) : undefined))
        .catch(() => undefined),
    );
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
