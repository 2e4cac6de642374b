// An answer streamed into a Slack thread as the model writes it (chat.startStream / appendStream / stopStream),
// so text appears within one round trip of each delta instead of through throttled edits.
//
// The SDK's `chatStream` helper buffers 256 characters before its first call and must not be called again
// while a call is in flight; here each delta goes out at once, and deltas arriving during a call are joined
// into the next one: never more than one call in flight, never a delta held back for a timer.
//
// The streamed message stays the one message that holds the round's text, whatever happens on the way: a retried
// model call that writes the same words again continues it (nothing is appended until the new text goes past
// what it holds); one that writes different words, a stream call that fails, or a re-run taking over the stream
// an earlier run left (`adopt`) turn it into a message edited in place. It is never deleted and never posted again.
import type { Logger } from '../../src/log.ts';
import { LiveMessage } from './liveMessage.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { SLACK_TEXT_LIMIT } from './messageLimits.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

/**
 * Slack's three control characters, escaped one by one (so a split between deltas never matters): model text
 * can then never ping a channel (`<!channel>`) or forge a mention or link.
 */
function neutralise(markdown: string): string {
  return markdown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** How much of a text being written an edited message previews (its tail). */
const PREVIEW_CHARS = 1500;

/** A text still being written, as an edited message shows it: its tail, marked unfinished. */
export function previewText(markdown: string): string {
  const tail = markdown.length > PREVIEW_CHARS ? `…${markdown.slice(-PREVIEW_CHARS)}` : markdown;
  return `${markdownToMrkdwn(tail)} …`.slice(0, SLACK_TEXT_LIMIT);
}

/**
 * Which workspaces refused streaming (not an AI app, an older workspace): remembered for the process, so their
 * turns go straight to edits instead of failing a start each time.
 */
export class StreamingSupport {
  readonly #refused = new Map<string, string>();

  allowed(teamId: string): boolean {
    return !this.#refused.has(teamId);
  }

  refuse(teamId: string, reason: string): void {
    this.#refused.set(teamId, reason);
  }
}

/** Errors that say the call itself is fine but this workspace or app cannot stream. */
const REFUSALS = new Set([
  'feature_not_enabled', 'not_allowed_token_type', 'unknown_method', 'method_not_supported_for_channel_type', 'missing_scope',
  'not_allowed', 'team_not_allowed',
]);

export interface StreamTarget {
  channel: string;
  threadTs: string;
  teamId: string;
  userId: string;
}

/** How a finished stream left the text it was given: held as is, to be written over (`replaceWith`), or nowhere. */
export type StreamEnd = 'held' | 'replace' | 'none';

export class AnswerStream {
  #ts: string | undefined;
  /** The text this round should show (reset by a retried model call). */
  #text = '';
  /** Text sent to Slack, or queued to be. */
  #shipped = '';
  #pending = '';
  #pump: Promise<void> = Promise.resolve();
  #busy = false;
  #failed: string | undefined;
  #closed = false;
  /** Set once the message is shown through edits instead of the stream. */
  #edits: LiveMessage | undefined;

  constructor(
    private readonly api: SlackApi,
    private readonly target: StreamTarget,
    private readonly support: StreamingSupport,
    private readonly logger: Logger,
    /** Called once the streamed message exists (the sink remembers it for a re-run of the turn). */
    private readonly onStart?: (ts: string) => void,
    /** The message an earlier run of the same turn streamed this round into: taken over instead of a new one. */
    private readonly adopt?: Promise<string | undefined>,
    /** Called (and awaited) just before the stream starts: a re-run after a crash mid-start then knows to look for it. */
    private readonly onStarting?: () => Promise<void>,
  ) {}

  /** True when nothing could be shown (streaming refused before a message existed): show the text another way. */
  get unusable(): boolean {
    return this.#failed !== undefined && this.#ts === undefined && this.#edits === undefined;
  }

  /** The round's text so far. */
  get text(): string {
    return this.#text;
  }

  append(delta: string): void {
    if (this.#closed || delta === '') return;
    this.#text += delta;
    this.#sync();
  }

  /** The model call is being retried: the text so far is void, and the retried text continues or replaces it. */
  retry(): void {
    this.#text = '';
  }

  #sync(): void {
    if (this.#edits) {
      this.#edits.show(previewText(this.#text));
      return;
    }
    if (this.#failed !== undefined) {
      if (this.#ts !== undefined) this.#toEdits(this.#pump);
      return;
    }
    // A retried call writing what the message already holds: nothing to add yet.
    if (this.#shipped.startsWith(this.#text)) return;
    if (!this.#text.startsWith(this.#shipped)) {
      // It says something else: the message is rewritten through edits, never posted again.
      this.#toEdits(this.#pump);
      return;
    }
    this.#pending += this.#text.slice(this.#shipped.length);
    this.#shipped = this.#text;
    if (!this.#busy) this.#pump = this.#send();
  }

  /**
   * From now on the message is edited in place (its stream ended first, once `after` settles), previewing the
   * text unless the final text follows at once.
   */
  #toEdits(after: Promise<void>, preview = true): void {
    if (this.#edits) return;
    const edits = new LiveMessage(this.api, this.target.channel, this.target.threadTs, this.logger);
    this.#edits = edits;
    const ended = after.then(async () => {
      const ts = this.#ts;
      if (ts !== undefined) await this.api.stopStream({ channel: this.target.channel, ts }).catch(() => undefined);
      return ts;
    });
    edits.open(preview ? previewText(this.#text) : undefined, { get: () => ended, set: async () => undefined });
  }

  async #send(): Promise<void> {
    this.#busy = true;
    try {
      if (this.#ts === undefined && this.adopt) {
        const earlier = await this.adopt.catch(() => undefined);
        if (earlier !== undefined) {
          this.#ts = earlier;
          this.#pending = '';
          this.#toEdits(Promise.resolve());
          return;
        }
      }
      while (this.#pending !== '' && this.#failed === undefined && this.#edits === undefined) {
        const markdown = this.#pending;
        this.#pending = '';
        try {
          if (this.#ts === undefined) {
            await this.onStarting?.();
            this.#ts = await this.api.startStream({
              channel: this.target.channel,
              threadTs: this.target.threadTs,
              markdown: neutralise(markdown),
              recipientTeamId: this.target.teamId,
              recipientUserId: this.target.userId,
            });
            this.onStart?.(this.#ts);
          } else {
            await this.api.appendStream({ channel: this.target.channel, ts: this.#ts, markdown: neutralise(markdown) });
          }
        } catch (error) {
          // Rate limits were waited out already (SlackApi): this is a real failure.
          const code = slackErrorCode(error);
          this.#failed = code;
          if (this.#ts === undefined && REFUSALS.has(code)) {
            this.support.refuse(this.target.teamId, code);
            this.logger.info({ err: code, team: this.target.teamId }, 'Slack refused streaming here; answers in this workspace use edits');
          } else this.logger.warn({ err: code }, 'streaming the answer failed; editing the message instead');
        }
      }
    } finally {
      this.#busy = false;
    }
    if (this.#failed !== undefined && this.#ts !== undefined && !this.#closed) this.#toEdits(Promise.resolve());
  }

  /**
   * Ends the stream. `complete` is the answer's full text (default: the round's text). `held`: the message now
   * holds exactly that (its missing end was appended); `replace`: it must be written over with `replaceWith`;
   * `none`: there is no message (show the text another way).
   */
  async finish(complete?: string): Promise<StreamEnd> {
    this.#closed = true;
    await this.#pump;
    if (this.#edits) return 'replace';
    if (this.#ts === undefined) return 'none';
    const wanted = complete ?? this.#text;
    const streamed = this.#shipped.trim();
    if (this.#failed === undefined && wanted.startsWith(streamed)) {
      const rest = wanted.slice(streamed.length);
      try {
        await this.api.stopStream({ channel: this.target.channel, ts: this.#ts, ...(rest ? { markdown: neutralise(rest) } : {}) });
        return 'held';
      } catch (error) {
        this.logger.warn({ err: slackErrorCode(error) }, 'stopping the answer stream failed; editing the message instead');
      }
    }
    this.#toEdits(Promise.resolve(), false);
    return 'replace';
  }

  /** Writes `text` (mrkdwn) over the message once `finish` said `replace`. False when Slack refused it. */
  async replaceWith(text: string): Promise<boolean> {
    return (await this.#edits?.finish(text)) ?? false;
  }
}
