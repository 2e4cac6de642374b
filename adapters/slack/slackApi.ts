// The few Web API calls the adapter makes, with the one retry that can never post twice: after a 429.
import { setTimeout as delay } from 'node:timers/promises';
import { webApi } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';
import type { SlackBlock } from './approvalBlocks.ts';

type WebClient = InstanceType<typeof webApi.WebClient>;
type WebClientOptions = NonNullable<ConstructorParameters<typeof webApi.WebClient>[1]>;

/**
 * WebClient options for every call the bot makes. The SDK's default retries for about 30 minutes, including
 * after a timeout or a 5xx that may already have posted the message: that posts duplicates. So: no automatic
 * retry at all, and a 429 comes back to us as an error carrying Retry-After (see SlackApi.#withRateLimit).
 */
export function webClientOptions(apiUrl: string | undefined): WebClientOptions {
  return {
    ...(apiUrl ? { slackApiUrl: `${apiUrl}/` } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 15_000,
  };
}

/** How many 429s in a row one call waits out before giving up. */
const MAX_RATE_LIMIT_WAITS = 3;
/** A Retry-After longer than this is not waited out (the call fails). */
const MAX_WAIT_MS = 60_000;

export interface Identity {
  teamId: string;
  botUserId: string;
  botId: string;
}

export interface PostArgs {
  channel: string;
  text: string;
  threadTs?: string;
  blocks?: SlackBlock[];
}

/** The Slack error code of a failed call (`channel_not_found`, `ratelimited`…), or the error's message. */
export function slackErrorCode(error: unknown): string {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  if (typeof data?.error === 'string') return data.error;
  return error instanceof Error ? error.message : String(error);
}

function isRateLimited(error: unknown): error is { retryAfter: number } {
  return (error as { code?: unknown } | undefined)?.code === webApi.ErrorCode.RateLimitedError;
}

export class SlackApi {
  readonly #client: WebClient;
  readonly #logger: Logger;
  readonly #closing = new AbortController();

  constructor(client: WebClient, logger: Logger) {
    this.#client = client;
    this.#logger = logger;
  }

  /** Who the token belongs to. Throws on a refused token or an unreachable API. */
  async identity(): Promise<Identity> {
    const result = await this.#withRateLimit('auth.test', () => this.#client.auth.test());
    if (!result.team_id || !result.user_id || !result.bot_id) throw new Error('auth.test did not name a team, bot user and bot');
    return { teamId: result.team_id, botUserId: result.user_id, botId: result.bot_id };
  }

  /** Posts a message; returns its ts. */
  async post(args: PostArgs): Promise<string> {
    const result = await this.#withRateLimit('chat.postMessage', () =>
      this.#client.chat.postMessage({
        channel: args.channel,
        text: args.text,
        ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
        ...(args.blocks ? { blocks: args.blocks } : {}),
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (!result.ts) throw new Error('chat.postMessage returned no ts');
    return result.ts;
  }

  async update(args: { channel: string; ts: string; text: string; blocks?: SlackBlock[] }): Promise<void> {
    await this.#withRateLimit('chat.update', () =>
      this.#client.chat.update({ channel: args.channel, ts: args.ts, text: args.text, blocks: args.blocks ?? [] }),
    );
  }

  /** A message only `user` sees. */
  async postEphemeral(args: { channel: string; user: string; text: string; threadTs?: string }): Promise<void> {
    await this.#withRateLimit('chat.postEphemeral', () =>
      this.#client.chat.postEphemeral({
        channel: args.channel,
        user: args.user,
        text: args.text,
        ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
      }),
    );
  }

  /** Ends waits for Retry-After at once (shutdown). */
  close(): void {
    this.#closing.abort();
  }

  /** A 429 means Slack did not perform the call, so repeating it after Retry-After cannot duplicate anything. */
  async #withRateLimit<T>(method: string, call: () => Promise<T>): Promise<T> {
    for (let waits = 0; ; waits += 1) {
      try {
        return await call();
      } catch (error) {
        if (!isRateLimited(error) || waits >= MAX_RATE_LIMIT_WAITS) throw error;
        const waitMs = Math.max(1, error.retryAfter) * 1000;
        if (waitMs > MAX_WAIT_MS) throw error;
        this.#logger.warn({ method, retryAfterS: error.retryAfter }, 'Slack rate limit: waiting as Retry-After asks');
        await delay(waitMs, undefined, { signal: this.#closing.signal });
      }
    }
  }
}
