// The Slack Web API methods the bot calls, answered like Slack answers them (the limits that matter enforced).

/** One message the bot posted, with every later edit. */
export interface PostedMessage {
  channel: string;
  ts: string;
  /** The thread it was posted into; undefined for a channel root. */
  threadTs?: string;
  text: string;
  blocks?: unknown[];
  /** Earlier versions, oldest first, when chat.update replaced them. */
  edits: Array<{ text: string; blocks?: unknown[]; at: number }>;
  postedAt: number;
  updatedAt?: number;
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  threadTs?: string;
  at: number;
}

export interface WorkspaceInfo {
  teamId: string;
  botUserId: string;
  botId: string;
}

/** What a method answers: Slack's JSON, always HTTP 200 for API-level errors. */
export type MethodResult = Record<string, unknown> & { ok: boolean };

export const TEXT_LIMIT = 40_000;
const BLOCKS_LIMIT = 50;
const SECTION_TEXT_LIMIT = 3000;

const fail = (error: string): MethodResult => ({ ok: false, error });

function str(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Blocks arrive JSON-encoded in form bodies (the SDK flattens objects that way). */
function blocksOf(params: Record<string, unknown>): unknown[] | undefined | 'invalid' {
  let value = params.blocks;
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return 'invalid';
    }
  }
  return Array.isArray(value) ? value : 'invalid';
}

/** The checks Slack makes that a bot is most likely to trip: counts and text lengths. */
function blocksProblem(blocks: unknown[]): string | undefined {
  if (blocks.length > BLOCKS_LIMIT) return 'invalid_blocks';
  for (const block of blocks) {
    const shaped = block as { type?: unknown; text?: { text?: unknown }; elements?: unknown[] };
    if (typeof shaped.type !== 'string') return 'invalid_blocks';
    if (shaped.type === 'section' && typeof shaped.text?.text === 'string' && shaped.text.text.length > SECTION_TEXT_LIMIT) return 'invalid_blocks';
    if (shaped.type === 'actions' && (!Array.isArray(shaped.elements) || shaped.elements.length > 25)) return 'invalid_blocks';
  }
  return undefined;
}

export class FakeWorkspace {
  readonly messages: PostedMessage[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  /** Channels the bot may not post in, with the error Slack gives (`not_in_channel`, `channel_not_found`). */
  readonly refusedChannels = new Map<string, string>();
  #seq = 0;

  constructor(readonly info: WorkspaceInfo) {}

  #nextTs(): string {
    this.#seq += 1;
    return `1800000000.${String(this.#seq).padStart(6, '0')}`;
  }

  call(method: string, params: Record<string, unknown>): MethodResult {
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://fake.slack.test/', team: 'Fake Team', user: 'skillbot', team_id: this.info.teamId, user_id: this.info.botUserId, bot_id: this.info.botId };
      case 'chat.postMessage':
        return this.#post(params);
      case 'chat.update':
        return this.#update(params);
      case 'chat.postEphemeral':
        return this.#ephemeral(params);
      default:
        return fail('unknown_method');
    }
  }

  #content(params: Record<string, unknown>): { text: string; blocks?: unknown[] } | string {
    const text = typeof params.text === 'string' ? params.text : '';
    const blocks = blocksOf(params);
    if (blocks === 'invalid') return 'invalid_blocks';
    if (text === '' && (blocks === undefined || blocks.length === 0)) return 'no_text';
    if (text.length > TEXT_LIMIT) return 'msg_too_long';
    const problem = blocks ? blocksProblem(blocks) : undefined;
    if (problem) return problem;
    return { text, ...(blocks ? { blocks } : {}) };
  }

  #post(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    if (!channel) return fail('channel_not_found');
    const refused = this.refusedChannels.get(channel);
    if (refused) return fail(refused);
    const content = this.#content(params);
    if (typeof content === 'string') return fail(content);
    const threadTs = str(params, 'thread_ts');
    const message: PostedMessage = { channel, ts: this.#nextTs(), text: content.text, edits: [], postedAt: Date.now(), ...(threadTs ? { threadTs } : {}), ...(content.blocks ? { blocks: content.blocks } : {}) };
    this.messages.push(message);
    return { ok: true, channel, ts: message.ts, message: { type: 'message', user: this.info.botUserId, bot_id: this.info.botId, text: message.text, ts: message.ts, ...(threadTs ? { thread_ts: threadTs } : {}) } };
  }

  #update(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    const ts = str(params, 'ts');
    const message = this.messages.find((candidate) => candidate.channel === channel && candidate.ts === ts);
    if (!message) return fail(channel ? 'message_not_found' : 'channel_not_found');
    const content = this.#content(params);
    if (typeof content === 'string') return fail(content);
    message.edits.push({ text: message.text, at: message.updatedAt ?? message.postedAt, ...(message.blocks ? { blocks: message.blocks } : {}) });
    message.text = content.text;
    // An empty blocks list clears the blocks, as in Slack.
    if (content.blocks !== undefined) message.blocks = content.blocks.length > 0 ? content.blocks : undefined;
    message.updatedAt = Date.now();
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  }

  #ephemeral(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    const user = str(params, 'user');
    if (!channel) return fail('channel_not_found');
    if (!user) return fail('user_not_in_channel');
    const content = this.#content(params);
    if (typeof content === 'string') return fail(content);
    const threadTs = str(params, 'thread_ts');
    this.ephemerals.push({ channel, user, text: content.text, at: Date.now(), ...(threadTs ? { threadTs } : {}) });
    return { ok: true, message_ts: this.#nextTs() };
  }
}
