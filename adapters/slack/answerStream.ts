// A turn's message streamed as the model writes it (chat.startStream / appendStream / stopStream), so text
// appears within one round trip of each delta instead of through throttled edits.
//
// The SDK's `chatStream` helper buffers 256 characters before its first call and must not be called again
// while a call is in flight; here every chunk goes out at once, and chunks arriving during a call join the next
// one: never more than one call in flight, never a delta held back for a timer. This class only ships chunks;
// what the message becomes when streaming fails or the text changes its mind is the TurnMessage's business.
import type { Logger } from '../../src/ops/log.ts';
import type { SlackBlock } from './slackBlock.ts';
import { slackErrorCode, type SlackApi, type StreamChunk } from './slackApi.ts';

/**
 * Slack's three control characters, escaped one by one (so a split between deltas never matters): model text
 * can then never ping a channel (`<!channel>`) or forge a mention or link.
 */
export function neutralise(markdown: string): string {
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

/**
 * Errors of a stream's start that say this workspace or app cannot stream (or not as the bot starts it: with the
 * Stop button in a `blocks` chunk).
 */
export const STREAMING_REFUSALS = new Set([
  'feature_not_enabled', 'not_allowed_token_type', 'unknown_method', 'method_not_supported_for_channel_type', 'missing_scope',
  'not_allowed', 'team_not_allowed', 'invalid_chunks', 'invalid_blocks',
]);

export interface StreamTarget {
  channel: string;
  threadTs: string;
  teamId: string;
  userId: string;
}

export interface StreamHooks {
  /** Awaited just before the stream starts: a re-run after a crash mid-start then knows to look for it. */
  starting?(): Promise<void>;
  /** The streamed message exists (the turn remembers it for a re-run). */
  started?(ts: string): void;
  /** A call failed for good (429s were waited out already); nothing more is sent. */
  failed(code: string): void;
}

export class AnswerStream {
  #ts: string | undefined;
  /** The text sent to Slack, or queued to be. */
  #shipped = '';
  #queue: StreamChunk[] = [];
  #pump: Promise<void> = Promise.resolve();
  #busy = false;
  #failed: string | undefined;
  #closed = false;

  constructor(
    private readonly api: SlackApi,
    private readonly target: StreamTarget,
    private readonly logger: Logger,
    private readonly hooks: StreamHooks,
  ) {}

  /** Starts the message at once, showing `blocks` (its controls) until text comes under them. */
  start(blocks: SlackBlock[]): void {
    this.#push({ type: 'blocks', blocks });
  }

  /**
   * The whole text the message should show now (Markdown). `diverged` when it does not continue what was sent:
   * the stream cannot take text back, so the caller rewrites the message another way. Text that repeats the
   * beginning of what was sent (a retried model call) sends nothing until it goes past it.
   */
  show(text: string): 'ok' | 'diverged' {
    if (this.#shipped.startsWith(text)) return 'ok';
    if (!text.startsWith(this.#shipped)) return 'diverged';
    const added = text.slice(this.#shipped.length);
    this.#shipped = text;
    this.#push({ type: 'markdown_text', text: neutralise(added) });
    return 'ok';
  }

  /** A task card in the message (a tool step): shown at once, updated in place by a later call with its id. */
  task(id: string, title: string, status: 'in_progress' | 'complete'): void {
    this.#push({ type: 'task_update', id, title, status });
  }

  /** Ends the stream (everything queued sent first); the message's ts, if it exists. */
  async close(): Promise<string | undefined> {
    this.#closed = true;
    await this.#pump;
    if (this.#ts !== undefined && this.#failed === undefined) {
      await this.api.stopStream({ channel: this.target.channel, ts: this.#ts }).catch((error: unknown) => {
        this.logger.info({ err: slackErrorCode(error) }, 'stopping the stream failed (Slack ends idle streams by itself)');
      });
    }
    return this.#ts;
  }

  #push(chunk: StreamChunk): void {
    if (this.#closed || this.#failed !== undefined) return;
    const last = this.#queue.at(-1);
    if (chunk.type === 'markdown_text' && last?.type === 'markdown_text') last.text += chunk.text;
    else this.#queue.push(chunk);
    if (!this.#busy) this.#pump = this.#send();
  }

  async #send(): Promise<void> {
    this.#busy = true;
    try {
      while (this.#queue.length > 0 && this.#failed === undefined) {
        const chunks = this.#queue;
        this.#queue = [];
        try {
          if (this.#ts === undefined) {
            await this.hooks.starting?.();
            this.#ts = await this.api.startStream({
              channel: this.target.channel,
              threadTs: this.target.threadTs,
              chunks,
              recipientTeamId: this.target.teamId,
              recipientUserId: this.target.userId,
            });
            this.hooks.started?.(this.#ts);
          } else {
            await this.api.appendStream({ channel: this.target.channel, ts: this.#ts, chunks });
          }
        } catch (error) {
          this.#failed = slackErrorCode(error);
          this.#queue = [];
          this.hooks.failed(this.#failed);
        }
      }
    } finally {
      this.#busy = false;
    }
  }
}
