// The one message a turn shows in its Slack thread, from its first moment to its answer: every text the model
// writes (before a tool call, after it, the answer) goes into it, so each text is posted once and nothing is
// posted then deleted.
//
// Where the workspace streams, the message is a stream started at once with the Stop button above where the text
// will come; tool steps show as task cards between the texts. Once the answer stands, the message is written over
// with the answer alone (the Stop button and the cards go). Where streaming is refused, fails, or cannot take
// what the model now says (a retried call that says something else; a re-run taking over the message its dead
// first run left), the same message is edited in place instead: a preview of the text with the current step and
// the Stop button, at most once a second.
import type { Logger } from '../../src/ops/log.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';
import { joinRounds, tailOf } from '../../src/text/turnText.ts';
import { AnswerStream, neutralise, STREAMING_REFUSALS, type StreamingSupport } from './answerStream.ts';
import { LiveMessage, type MessageMemory } from './liveMessage.ts';
import { SLACK_MESSAGES, SLACK_TEXT_LIMIT } from './messageLimits.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import { progressBlocks, stopControls } from './turnControls.ts';

export const PLACEHOLDER_TEXT = '_Working on it…_';
/** What the turn's memory holds while its message is being started (its ts not known yet). */
const STARTING = 'starting';
/** The newest `latest` a thread read can name: everything so far. */
const LATEST = '9999999999.999999';
/** What `markdown_text` may hold (chat.update, chat.postMessage); a longer answer is written as split mrkdwn. */
const MARKDOWN_LIMIT = 12_000;
/** How much of a text being written an edited message previews (its tail). */
const PREVIEW_CHARS = 1500;

/** A text still being written, as an edited message shows it: its tail, marked unfinished. */
export function previewText(markdown: string): string {
  return `${markdownToMrkdwn(tailOf(markdown, PREVIEW_CHARS))} …`.slice(0, SLACK_TEXT_LIMIT);
}

/** Who and where the turn answers. */
export interface ThreadTarget {
  channel: string;
  threadTs: string;
  teamId: string;
  /** The person whose message started the turn (a streamed answer outside a DM is addressed to them). */
  userId: string;
  turnId: string;
}

export class TurnMessage {
  /** Texts of rounds ended by a tool call, as written. */
  readonly #rounds: string[] = [];
  /** The current round's text. */
  #draft = '';
  /** The step the turn is on ("Loading release-notes…"), until text follows it. */
  #step: string | undefined;
  /** The streamed task card showing the step, while it runs. */
  #task: { id: string; title: string } | undefined;
  #tasks = 0;
  #stream: AnswerStream | undefined;
  #live: LiveMessage | undefined;
  /** Settles once the message's form (stream or edits) is chosen; mode switches chain on it. */
  #ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: SlackApi,
    private readonly target: ThreadTarget,
    private readonly logger: Logger,
    private readonly streaming: StreamingSupport | undefined,
    /** Where the message's ts is kept for a re-run of the turn (after its instance died). */
    private readonly memory: MessageMemory | undefined,
  ) {}

  /** Shows the message at once: a stream with the Stop button, or a posted "Working on it…"; or takes over the one a dead earlier run left. */
  open(): void {
    this.#ready = (async () => {
      const earlier = await this.#earlier().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'reading the remembered message failed');
        return undefined;
      });
      if (earlier !== undefined) {
        // It may still be streaming (its instance died mid-answer): end that, then edit it in place.
        await this.api.stopStream({ channel: this.target.channel, ts: earlier }).catch(() => undefined);
        this.#toEdits(earlier);
      } else if (this.streaming?.allowed(this.target.teamId)) {
        this.#stream = new AnswerStream(this.api, this.target, this.logger, {
          starting: () => this.#remember(() => this.memory?.set(STARTING)),
          started: (ts) => void this.#remember(() => this.memory?.set(ts)),
          failed: (code) => this.#streamFailed(code),
        });
        this.#stream.start(stopControls(this.target.turnId));
        if (this.#step !== undefined) this.#openTask(this.#step);
        this.#render();
      } else {
        this.#toEdits(undefined);
      }
    })();
  }

  write(delta: string): void {
    this.#draft += delta;
    this.#endStep();
    this.#render();
  }

  /** A tool call follows: the round's text stays as written, and `step` shows until text follows. */
  progress(step: string): void {
    if (this.#draft.trim() !== '') this.#rounds.push(this.#draft);
    this.#draft = '';
    this.#endStep();
    this.#step = step;
    this.#openTask(step);
    this.#render();
  }

  /** The model call is retried: the round's text so far is void (retried text that repeats it continues it). */
  retrying(note: string): void {
    this.#draft = '';
    // An edited message says so; a stream shows nothing until the retried text goes past what it holds.
    this.#step = note;
    this.#render();
  }

  /** Writes the answer over the message (texts of earlier rounds leading it); posts it when there is no message. */
  async finish(markdown: string): Promise<void> {
    const whole = joinRounds([...this.#rounds, markdown]);
    const ts = await this.#settle();
    if (ts !== undefined && (await this.#writeOver(ts, whole))) return;
    await this.#post(splitMessage(markdownToMrkdwn(whole), SLACK_MESSAGES));
  }

  /** Writes `notice` (mrkdwn) under what was written so far, in place of the controls. */
  async stopped(notice: string): Promise<void> {
    const written = this.#text();
    const ts = await this.#settle();
    const [head = '', ...more] = written.trim() === '' ? [] : splitMessage(markdownToMrkdwn(written), { ...SLACK_MESSAGES, limit: SLACK_TEXT_LIMIT - notice.length - 10 });
    const text = head === '' ? notice : `${head}${more.length > 0 ? ' …' : ''}\n\n${notice}`;
    if (ts !== undefined) {
      try {
        await this.api.update({ channel: this.target.channel, ts, text });
        return;
      } catch (error) {
        this.logger.warn({ err: slackErrorCode(error) }, 'writing the stop notice over the message failed; posting it');
      }
    }
    await this.#post([notice]);
  }

  /** Every text so far, as written. */
  #text(): string {
    return joinRounds([...this.#rounds, this.#draft]);
  }

  #openTask(title: string): void {
    if (!this.#stream) return;
    this.#tasks += 1;
    this.#task = { id: `step-${this.#tasks}`, title };
    this.#stream.task(this.#task.id, title, 'in_progress');
  }

  /** Text follows the step (or a next step comes): its task card is done. */
  #endStep(): void {
    if (this.#task) this.#stream?.task(this.#task.id, this.#task.title, 'complete');
    this.#task = undefined;
    this.#step = undefined;
  }

  #render(): void {
    if (this.#stream) {
      if (this.#stream.show(this.#text()) === 'diverged') this.#streamToEdits();
      return;
    }
    this.#live?.show(this.#editsText());
  }

  /** The edited message's text: a preview of what was written, and the current step under it. */
  #editsText(): string {
    const written = this.#text();
    const step = this.#step === undefined ? undefined : `_${safeText(this.#step)}_`;
    if (written.trim() === '') return step ?? PLACEHOLDER_TEXT;
    return step === undefined ? previewText(written) : `${previewText(written)}\n\n${step}`;
  }

  #streamFailed(code: string): void {
    const stream = this.#stream;
    if (!stream) return;
    this.#ready = this.#ready.then(async () => {
      const ts = await stream.close();
      if (ts === undefined && STREAMING_REFUSALS.has(code)) {
        this.streaming?.refuse(this.target.teamId, code);
        this.logger.info({ err: code, team: this.target.teamId }, 'Slack refused streaming here; answers in this workspace use edits');
      } else this.logger.warn({ err: code }, 'streaming the answer failed; editing the message instead');
      if (this.#stream === stream) {
        this.#stream = undefined;
        this.#toEdits(ts);
      }
    });
  }

  /** The stream cannot show what the model now says: it ends, and the same message is edited from here on. */
  #streamToEdits(): void {
    const stream = this.#stream;
    if (!stream) return;
    this.#stream = undefined;
    this.#toEdits(undefined, stream.close());
  }

  /** From now on the message is edited: `ts` (or the one `ended` resolves to); posted anew when there is none. */
  #toEdits(ts: string | undefined, ended?: Promise<string | undefined>): void {
    this.#task = undefined;
    const live = new LiveMessage(this.api, this.target.channel, this.target.threadTs, this.logger, (text) => progressBlocks(text, this.target.turnId));
    this.#live = live;
    live.open(this.#editsText(), {
      get: async () => ts ?? (await ended),
      set: (posted) => this.#remember(() => this.memory?.set(posted)),
      starting: () => this.#remember(() => this.memory?.set(STARTING)),
    });
  }

  /**
   * The message an earlier run of this turn showed, if any. When that run died between starting it and
   * remembering its ts, it is the bot's message in the thread whose Stop button names this turn, if Slack got it.
   */
  async #earlier(): Promise<string | undefined> {
    const held = await this.memory?.get();
    if (held !== STARTING) return held;
    const { channel, threadTs, turnId } = this.target;
    const messages = await this.api.threadMessages(channel, threadTs, LATEST).catch(() => []);
    return messages.find((message) => message.bot_id !== undefined && message.ts !== undefined && JSON.stringify(message.blocks ?? []).includes(`"value":"${turnId}"`))?.ts;
  }

  /** Ends streaming or edits; the message's ts, if there is one. */
  async #settle(): Promise<string | undefined> {
    // A failed stream may switch to edits meanwhile: wait until the form stands still.
    for (let ready = this.#ready; ; ready = this.#ready) {
      await ready;
      if (ready === this.#ready) break;
    }
    this.#endStep();
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream) return stream.close();
    return this.#live?.settle();
  }

  /**
   * The final text over the message, its controls gone: Markdown as Slack renders it (as the stream showed it),
   * or, where streaming is refused or the text is too long for that, mrkdwn split to fit.
   */
  async #writeOver(ts: string, markdown: string): Promise<boolean> {
    const { channel } = this.target;
    const escaped = neutralise(markdown);
    if (this.streaming?.allowed(this.target.teamId) && escaped.length <= MARKDOWN_LIMIT) {
      try {
        await this.api.update({ channel, ts, markdown: escaped });
        return true;
      } catch (error) {
        this.logger.warn({ err: slackErrorCode(error) }, 'writing the answer over the message failed; trying it as mrkdwn');
      }
    }
    const [first = '', ...rest] = splitMessage(markdownToMrkdwn(markdown), SLACK_MESSAGES);
    try {
      await this.api.update({ channel, ts, text: first });
    } catch (error) {
      this.logger.warn({ err: slackErrorCode(error) }, 'writing the answer over the message failed; posting it');
      return false;
    }
    await this.#post(rest);
    return true;
  }

  async #post(parts: string[]): Promise<void> {
    for (const [index, text] of parts.entries()) {
      try {
        await this.api.post({ channel: this.target.channel, threadTs: this.target.threadTs, text });
      } catch (error) {
        this.logger.error({ err: slackErrorCode(error), part: index }, 'posting the answer failed');
        break;
      }
    }
  }

  /** A store write for a re-run: a failure is logged, never the turn's. */
  async #remember(write: () => Promise<void> | undefined): Promise<void> {
    await Promise.resolve(write()).catch((error: unknown) => this.logger.warn({ err: error }, 'remembering the turn message failed'));
  }
}
