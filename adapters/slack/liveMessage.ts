// A message shown through edits while a turn works: posted once (or taken over), then updated at most once a
// second, the latest text winning. While the turn runs it carries controls (the Stop button): `blocksFor` adds
// them to each update. What it finally reads is written by its owner once it has settled.
import type { Logger } from '../../src/ops/log.ts';
import type { SlackBlock } from './slackBlock.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

export const MIN_UPDATE_INTERVAL_MS = 1000;

/** Where a turn keeps its message's ts, so a re-run of the same message (after a crash) reuses it. */
export interface MessageMemory {
  get(): Promise<string | undefined>;
  set(ts: string): Promise<void>;
  /** Told just before the message is posted, so a re-run after a crash mid-post knows to look for it. */
  starting?(): Promise<void>;
}

export class LiveMessage {
  #ts: string | undefined;
  #opened: Promise<void> = Promise.resolve();
  #pending: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> = Promise.resolve();
  /** When the last update started; only updates are spaced (a quick answer is written over the message at once). */
  #lastCallAt = 0;
  #finished = false;

  constructor(
    private readonly api: SlackApi,
    private readonly channel: string,
    private readonly threadTs: string,
    private readonly logger: Logger,
    private readonly blocksFor?: (text: string) => SlackBlock[],
  ) {}

  #blocks(text: string): { blocks?: SlackBlock[] } {
    return this.blocksFor ? { blocks: this.blocksFor(text) } : {};
  }

  /**
   * Posts the message, or takes over the one `memory` names (an earlier run's, or a stream that ended). A failure
   * is logged: the answer is then posted as a new message.
   */
  open(text: string, memory?: MessageMemory): void {
    this.#opened = (async () => {
      const earlier = await memory?.get();
      if (earlier !== undefined) {
        this.#ts = earlier;
        // A text shown while this looked it up is newer than `text`.
        if (this.#pending === undefined && !this.#finished) this.#pending = text;
        this.#schedule();
        return;
      }
      if (this.#finished) return;
      await memory?.starting?.();
      this.#ts = await this.api.post({ channel: this.channel, threadTs: this.threadTs, text, ...this.#blocks(text) });
      await memory?.set(this.#ts);
      this.#schedule();
    })().catch((error: unknown) => this.logger.warn({ err: slackErrorCode(error) }, 'posting the message failed'));
  }

  /** Shows `text` on the next allowed update (a newer text replaces one not yet shown). */
  show(text: string): void {
    if (this.#finished) return;
    this.#pending = text;
    this.#schedule();
  }

  /**
   * Ends the edits: no further update goes out. Resolves once the last one has landed and the next call may follow
   * it (a second apart), with the message's ts, if there is one.
   */
  async settle(): Promise<string | undefined> {
    this.#finished = true;
    this.#pending = undefined;
    clearTimeout(this.#timer);
    await this.#opened;
    await this.#inFlight;
    if (this.#ts !== undefined) await this.#waitTurn();
    return this.#ts;
  }

  #schedule(): void {
    if (this.#ts === undefined || this.#timer !== undefined || this.#pending === undefined || this.#finished) return;
    const wait = Math.max(0, this.#lastCallAt + MIN_UPDATE_INTERVAL_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, wait);
  }

  #flush(): void {
    const text = this.#pending;
    const ts = this.#ts;
    if (text === undefined || ts === undefined || this.#finished) return;
    this.#pending = undefined;
    this.#lastCallAt = Date.now();
    this.#inFlight = this.#inFlight
      .then(() => this.api.update({ channel: this.channel, ts, text, ...this.#blocks(text) }))
      .catch((error: unknown) => this.logger.warn({ err: slackErrorCode(error) }, 'updating the message failed'))
      .then(() => this.#schedule());
  }

  async #waitTurn(): Promise<void> {
    const wait = this.#lastCallAt + MIN_UPDATE_INTERVAL_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
