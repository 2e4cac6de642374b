// An answer streamed into a Slack thread as the model writes it (chat.startStream / appendStream / stopStream),
// so text appears within one round trip of each delta instead of through throttled edits.
//
// The SDK's `chatStream` helper buffers 256 characters before its first call and must not be called again
// while a call is in flight; here each delta goes out at once, and deltas arriving during a call are joined
// into the next one: never more than one call in flight, never a delta held back for a timer.
import type { Logger } from '../../src/log.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

/**
 * Slack's three control characters, escaped one by one (so a split between deltas never matters): model text
 * can then never ping a channel (`<!channel>`) or forge a mention or link.
 */
function neutralise(markdown: string): string {
  return markdown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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

export class AnswerStream {
  #ts: string | undefined;
  /** Text Slack has (or is being sent). */
  #sent = '';
  #pending = '';
  #pump: Promise<void> = Promise.resolve();
  #busy = false;
  #failed: string | undefined;
  #stopped = false;

  constructor(
    private readonly api: SlackApi,
    private readonly target: StreamTarget,
    private readonly support: StreamingSupport,
    private readonly logger: Logger,
    /** Called once the streamed message exists (the sink remembers it for a re-run of the turn). */
    private readonly onStart?: (ts: string) => void,
  ) {}

  /** Why the stream stopped working (its text is then incomplete), or undefined. */
  get failed(): string | undefined {
    return this.#failed;
  }

  /** The streamed message, once started. */
  get ts(): string | undefined {
    return this.#ts;
  }

  /** Everything appended so far. */
  get text(): string {
    return this.#sent + this.#pending;
  }

  append(delta: string): void {
    if (this.#stopped || this.#failed !== undefined || delta === '') return;
    this.#pending += delta;
    if (!this.#busy) this.#pump = this.#send();
  }

  async #send(): Promise<void> {
    this.#busy = true;
    try {
      while (this.#pending !== '' && this.#failed === undefined) {
        const markdown = this.#pending;
        this.#pending = '';
        this.#sent += markdown;
        try {
          if (this.#ts === undefined) {
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
          const code = slackErrorCode(error);
          this.#failed = code;
          if (this.#ts === undefined && REFUSALS.has(code)) {
            this.support.refuse(this.target.teamId, code);
            this.logger.info({ err: code, team: this.target.teamId }, 'Slack refused streaming here; answers in this workspace use edits');
          } else this.logger.warn({ err: code }, 'streaming the answer failed');
        }
      }
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Ends the stream. With `complete`, the answer's full text: the missing end is appended first. True when the
   * streamed message now holds exactly that answer (false: post it another way, and remove this one).
   */
  async finish(complete?: string): Promise<boolean> {
    await this.#pump;
    if (this.#stopped) return false;
    this.#stopped = true;
    const streamed = this.#sent.trim();
    const rest = complete !== undefined && complete.startsWith(streamed) ? complete.slice(streamed.length) : '';
    const holdsAnswer = complete === undefined || streamed === complete.trim() || (streamed !== '' && complete.startsWith(streamed));
    if (this.#ts === undefined || this.#failed !== undefined) return false;
    try {
      await this.api.stopStream({ channel: this.target.channel, ts: this.#ts, ...(holdsAnswer && rest ? { markdown: neutralise(rest) } : {}) });
    } catch (error) {
      this.logger.warn({ err: slackErrorCode(error) }, 'stopping the answer stream failed');
      return false;
    }
    return holdsAnswer;
  }
}
