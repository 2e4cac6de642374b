// The few Web API calls the adapter makes, with the one retry that can never post twice: after a 429.
import { setTimeout as delay } from 'node:timers/promises';
import { webApi } from '@slack/bolt';
import type { Logger } from '../../src/ops/log.ts';
import type { SlackBlock } from './slackBlock.ts';

type WebClient = InstanceType<typeof webApi.WebClient>;
/** The SDK's own chunk type (the blocks it holds are typed more loosely here). */
type AnyChunk = NonNullable<NonNullable<Parameters<WebClient['chat']['startStream']>[0]>['chunks']>[number];
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
  /** The Enterprise Grid org of the bot's workspace, when it is in one. */
  enterpriseId?: string;
}

/** What users.info says of a person that the access rules read. */
export interface SlackUserFacts {
  teamId?: string;
  enterpriseId?: string;
  restricted: boolean;
  ultraRestricted: boolean;
  bot: boolean;
}

/** A message as conversations.replies and conversations.history return it (the fields the adapter reads). */
export interface SlackHistoryMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  username?: string;
  bot_profile?: { name?: string };
  text?: string;
  files?: Array<{ name?: string }>;
  blocks?: unknown[];
}

/** A streamed message's parts, in order: Markdown text, task cards (timeline: interleaved with the text, updated
 *  by id), and blocks (the Stop button). */
export type StreamChunk =
  | { type: 'markdown_text'; text: string }
  | { type: 'task_update'; id: string; title: string; status: 'in_progress' | 'complete' | 'error' }
  | { type: 'blocks'; blocks: SlackBlock[] };

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
    return { teamId: result.team_id, botUserId: result.user_id, botId: result.bot_id, ...(result.enterprise_id ? { enterpriseId: result.enterprise_id } : {}) };
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

  /** Rewrites a message: `text` (mrkdwn, with `blocks`, none by default), or `markdown` alone (Slack renders it). */
  async update(args: { channel: string; ts: string } & ({ text: string; blocks?: SlackBlock[] } | { markdown: string })): Promise<void> {
    const content = 'markdown' in args ? { markdown_text: args.markdown } : { text: args.text, blocks: args.blocks ?? [] };
    await this.#withRateLimit('chat.update', () => this.#client.chat.update({ channel: args.channel, ts: args.ts, ...content }));
  }

  /**
   * Starts a streamed message (chat.startStream) with its first chunks; returns its ts. Outside a DM Slack wants
   * the person the answer is for. Slack refuses it for apps that are not AI apps, and in older workspaces.
   */
  async startStream(args: { channel: string; threadTs: string; chunks: StreamChunk[]; recipientTeamId: string; recipientUserId: string }): Promise<string> {
    const result = await this.#withRateLimit('chat.startStream', () =>
      this.#client.chat.startStream({
        channel: args.channel,
        thread_ts: args.threadTs,
        chunks: args.chunks as AnyChunk[],
        recipient_team_id: args.recipientTeamId,
        recipient_user_id: args.recipientUserId,
      }),
    );
    if (!result.ts) throw new Error('chat.startStream returned no ts');
    return result.ts;
  }

  async appendStream(args: { channel: string; ts: string; chunks: StreamChunk[] }): Promise<void> {
    await this.#withRateLimit('chat.appendStream', () => this.#client.chat.appendStream({ channel: args.channel, ts: args.ts, chunks: args.chunks as AnyChunk[] }));
  }

  async stopStream(args: { channel: string; ts: string }): Promise<void> {
    await this.#withRateLimit('chat.stopStream', () => this.#client.chat.stopStream({ channel: args.channel, ts: args.ts }));
  }

  /** The assistant thread's "is working" line under the composer; '' clears it. */
  async setStatus(args: { channel: string; threadTs: string; status: string }): Promise<void> {
    await this.#withRateLimit('assistant.threads.setStatus', () =>
      this.#client.assistant.threads.setStatus({ channel_id: args.channel, thread_ts: args.threadTs, status: args.status }),
    );
  }

  async setTitle(args: { channel: string; threadTs: string; title: string }): Promise<void> {
    await this.#withRateLimit('assistant.threads.setTitle', () =>
      this.#client.assistant.threads.setTitle({ channel_id: args.channel, thread_ts: args.threadTs, title: args.title }),
    );
  }

  /** Prompts for an assistant thread, or without `threadTs` for the DM an agent_view app's person opened. */
  async setSuggestedPrompts(args: { channel: string; threadTs?: string; title: string; prompts: Array<{ title: string; message: string }> }): Promise<void> {
    const [first, ...rest] = args.prompts;
    if (!first) return;
    const thread = args.threadTs === undefined ? {} : { thread_ts: args.threadTs };
    await this.#withRateLimit('assistant.threads.setSuggestedPrompts', () =>
      this.#client.assistant.threads.setSuggestedPrompts({ channel_id: args.channel, ...thread, title: args.title, prompts: [first, ...rest] }),
    );
  }

  /** The person's App Home tab. */
  async publishHome(args: { userId: string; blocks: SlackBlock[] }): Promise<void> {
    await this.#withRateLimit('views.publish', () =>
      this.#client.views.publish({ user_id: args.userId, view: { type: 'home', blocks: args.blocks as never } }),
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

  /**
   * Posts a file into a thread the way Slack now wants: ask for an upload URL, send the bytes there, then
   * complete the upload into the channel (and thread), with an optional comment. Returns the file's id. Each
   * step is safe to repeat after a 429.
   */
  async uploadFile(args: { channel: string; threadTs?: string; name: string; bytes: Uint8Array; title: string; comment?: string; snippetType?: string }): Promise<string> {
    const ticket = await this.#withRateLimit('files.getUploadURLExternal', () =>
      this.#client.files.getUploadURLExternal({ filename: args.name, length: args.bytes.byteLength, ...(args.snippetType ? { snippet_type: args.snippetType } : {}) }),
    );
    if (!ticket.upload_url || !ticket.file_id) throw new Error('files.getUploadURLExternal returned no upload URL');
    const sent = await fetch(ticket.upload_url, {
      method: 'POST',
      body: args.bytes,
      headers: { 'content-type': 'application/octet-stream' },
      signal: AbortSignal.timeout(15_000),
    });
    await sent.body?.cancel();
    if (!sent.ok) throw new Error(`the upload URL answered HTTP ${sent.status}`);
    const fileId = ticket.file_id;
    await this.#withRateLimit('files.completeUploadExternal', () =>
      this.#client.files.completeUploadExternal({
        files: [{ id: fileId, title: args.title }],
        channel_id: args.channel,
        ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
        ...(args.comment ? { initial_comment: args.comment } : {}),
      }),
    );
    return fileId;
  }

  /** Shares a text as a file (a snippet) in a thread; see uploadFile. */
  uploadText(args: { channel: string; threadTs?: string; filename: string; title: string; content: string; comment?: string }): Promise<string> {
    const { filename, content, ...rest } = args;
    return this.uploadFile({ ...rest, name: filename, bytes: Buffer.from(content, 'utf8'), snippetType: 'text' });
  }

  /**
   * Messages of a thread (its root first), after `oldest` when given and up to `latest` (both exclusive), at most
   * `pages` pages of 200 (Slack pages from the oldest).
   */
  async threadMessages(channel: string, threadTs: string, latest: string, oldest?: string, pages = 5): Promise<SlackHistoryMessage[]> {
    const messages: SlackHistoryMessage[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < pages; page += 1) {
      const result = await this.#withRateLimit('conversations.replies', () =>
        this.#client.conversations.replies({ channel, ts: threadTs, latest, inclusive: false, limit: 200, ...(oldest ? { oldest } : {}), ...(cursor ? { cursor } : {}) }),
      );
      messages.push(...((result.messages ?? []) as SlackHistoryMessage[]));
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return messages;
  }

  /** The channel's latest top-level messages before `latest` (exclusive), newest first. */
  async channelMessages(channel: string, latest: string, limit: number): Promise<SlackHistoryMessage[]> {
    const result = await this.#withRateLimit('conversations.history', () =>
      this.#client.conversations.history({ channel, latest, inclusive: false, limit: Math.min(limit, 200) }),
    );
    return (result.messages ?? []) as SlackHistoryMessage[];
  }

  /** A person's display name (their chosen one, else their real name, else their handle). */
  async displayName(userId: string): Promise<string> {
    const result = await this.#withRateLimit('users.info', () => this.#client.users.info({ user: userId }));
    const user = result.user;
    return user?.profile?.display_name || user?.profile?.real_name || user?.real_name || user?.name || userId;
  }

  /** A person's guest and home-workspace facts (users.info; needs `users:read`). */
  async userFacts(userId: string): Promise<SlackUserFacts> {
    const { user } = await this.#withRateLimit('users.info', () => this.#client.users.info({ user: userId }));
    const enterpriseId = user?.enterprise_user?.enterprise_id ?? user?.enterprise_id;
    return {
      ...(user?.team_id ? { teamId: user.team_id } : {}),
      ...(enterpriseId ? { enterpriseId } : {}),
      restricted: user?.is_restricted === true,
      ultraRestricted: user?.is_ultra_restricted === true,
      bot: user?.is_bot === true,
    };
  }

  /** The members of a user group (usergroups.users.list; needs `usergroups:read`). */
  async groupMembers(groupId: string): Promise<string[]> {
    const result = await this.#withRateLimit('usergroups.users.list', () => this.#client.usergroups.users.list({ usergroup: groupId }));
    return result.users ?? [];
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
