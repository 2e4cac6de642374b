// A turn's TurnSink in a Slack thread. While it works: a progress message with a Stop button (and, in an
// assistant thread, Slack's own status line). The answer is streamed as its own message where the workspace
// allows it (the progress message then goes), else previewed in the progress message through throttled
// edits and finally written over it as mrkdwn, split to fit.
import type { Logger } from '../../src/log.ts';
import type { OutgoingFile, TurnSink } from '../../src/platform.ts';
import { AnswerStream, type StreamingSupport } from './answerStream.ts';
import { LiveMessage, type PlaceholderMemory } from './liveMessage.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import { SLACK_MESSAGES, SLACK_TEXT_LIMIT } from './messageLimits.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';
import { progressBlocks } from './turnControls.ts';

export const PLACEHOLDER_TEXT = '_Working on it…_';
/** How much of the streamed answer the placeholder previews. */
const PREVIEW_CHARS = 1500;
const WRITING_TEXT = '_Writing the answer…_';
/** What a stream cut off by a failed model call is left reading (the retried answer follows as its own). */
export const CUT_OFF_TEXT = '_(cut off: Claude was busy; trying again)_';

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

export class SlackTurnSink implements TurnSink {
  readonly #live: LiveMessage;
  #draft = '';
  #stream: AnswerStream | undefined;
  /** Streams of earlier rounds, ended when a tool call came after their text (they stay as messages). */
  #ending: Array<Promise<unknown>> = [];
  #status = '';
  #streamMemory: PlaceholderMemory | undefined;
  #earlierStream: Promise<string | undefined> | undefined;
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
   * `streamMemory` keeps the turn's streamed answer: a re-run (its first instance died mid-answer) removes the
   * earlier run's stream once its own answer shows, so the thread holds the answer once.
   */
  open(memory?: PlaceholderMemory, streamMemory?: PlaceholderMemory): void {
    this.#live.open(PLACEHOLDER_TEXT, memory);
    this.#setStatus('is working…');
    this.#streamMemory = streamMemory;
    this.#earlierStream = streamMemory?.get().catch(() => undefined);
  }

  /** The earlier run's streamed message goes once this run's answer is there (never before: nothing blank). */
  #replaceEarlierStream(ownTs: string | undefined): void {
    const earlier = this.#earlierStream;
    this.#earlierStream = undefined;
    void earlier
      ?.then(async (ts) => {
        if (ts !== undefined && ts !== ownTs) await this.api.delete({ channel: this.target.channel, ts });
      })
      .catch((error: unknown) => this.logger.info({ err: slackErrorCode(error) }, "removing an earlier run's streamed answer failed"));
  }

  #streamStarted(ts: string): void {
    this.#replaceEarlierStream(ts);
    this.#streamMemory?.set(ts).catch((error: unknown) => this.logger.warn({ err: error }, 'remembering the streamed answer failed'));
  }

  progress(text: string): void {
    this.#endRound();
    this.#draft = '';
    this.#live.show(`_${safeText(text)}_`);
    this.#setStatus(text);
  }

  partial(delta: string): void {
    this.#draft += delta;
    const streaming = this.options.streaming;
    if (streaming?.allowed(this.target.teamId) && !this.#stream?.failed) {
      if (!this.#stream) {
        this.#stream = new AnswerStream(this.api, this.target, streaming, this.logger, (ts) => this.#streamStarted(ts));
        this.#live.show(WRITING_TEXT);
      }
      this.#stream.append(delta);
      if (!this.#stream.failed) return;
    }
    const tail = this.#draft.length > PREVIEW_CHARS ? `…${this.#draft.slice(-PREVIEW_CHARS)}` : this.#draft;
    this.#live.show(`${markdownToMrkdwn(tail)} …`.slice(0, SLACK_TEXT_LIMIT));
  }

  retrying(): void {
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream) {
      // Its text is void: end it and say so where it stands.
      this.#ending.push(
        stream.finish().then(async () => {
          if (stream.ts) await this.api.update({ channel: this.target.channel, ts: stream.ts, text: CUT_OFF_TEXT });
        }).catch(() => undefined),
      );
    }
    this.#draft = '';
    this.#live.show('_Claude is busy; trying again…_');
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
    if (stream && (await stream.finish(markdown))) {
      await this.#live.remove('_Done._');
      await this.#statusCall;
      return;
    }
    if (stream?.ts) await this.api.delete({ channel: this.target.channel, ts: stream.ts }).catch(() => undefined);
    const [first = '', ...rest] = splitMessage(markdownToMrkdwn(markdown), SLACK_MESSAGES);
    const replaced = await this.#live.finish(first);
    this.#replaceEarlierStream(undefined);
    const parts = replaced ? rest : [first, ...rest];
    for (const [index, text] of parts.entries()) {
      try {
        await this.api.post({ channel: this.target.channel, threadTs: this.target.threadTs, text });
      } catch (error) {
        this.logger.error({ err: slackErrorCode(error), part: index }, 'posting the answer failed');
        break;
      }
    }
    await this.#statusCall;
  }

  /** A tool call follows text the model wrote: that text stays as a message of its own. */
  #endRound(): void {
    const stream = this.#stream;
    if (!stream) return;
    this.#stream = undefined;
    this.#ending.push(stream.finish().catch(() => false));
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
