// The Slack Web API methods the bot calls, answered like Slack answers them (the limits that matter enforced).
import { blocksOf, blocksProblem, MARKDOWN_LIMIT } from './messageContent.ts';
import { applyStream, streamContent, type StreamTask } from './streamContent.ts';

export type { StreamTask } from './streamContent.ts';

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
  /** A message made by chat.startStream: `streaming` until chat.stopStream, then `stopped`. Its text is Markdown. */
  stream?: 'streaming' | 'stopped';
  /** Its text is Markdown Slack renders (streamed, or written with `markdown_text`), not mrkdwn. */
  markdown?: boolean;
  /** Task cards streamed into it (by id, in order), until chat.update rewrites it. */
  tasks?: StreamTask[];
}

/** An assistant-thread call (setStatus, setTitle, setSuggestedPrompts), as Slack received it. */
export interface AssistantCall {
  method: 'setStatus' | 'setTitle' | 'setSuggestedPrompts';
  channel: string;
  /** Absent for prompts suggested for an agent_view DM rather than a thread. */
  threadTs?: string;
  /** setStatus's status, setTitle's title, setSuggestedPrompts' title. */
  text: string;
  prompts?: Array<{ title: string; message: string }>;
  at: number;
}

/** A Home tab published for a person (views.publish). */
export interface PublishedView {
  userId: string;
  view: { type: string; blocks: unknown[] };
  at: number;
}

/** A modal opened with views.open (answering a click's trigger_id). */
export interface OpenedModal {
  id: string;
  triggerId: string;
  view: { type: 'modal'; callback_id?: string; private_metadata?: string; blocks: Array<Record<string, unknown>> };
  at: number;
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  threadTs?: string;
  at: number;
}

/** A message people (or other bots) wrote, seeded by a test: what conversations.replies/history return beside the bot's own. */
export interface SeededMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  user?: string;
  botId?: string;
  botName?: string;
  text: string;
}

/** A file a person shared (the bot downloads it from `url_private`). */
export interface SharedFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Buffer;
  /** Served through a redirect to another path (as Slack's CDN does), where no token is needed. */
  redirect: boolean;
}

/** A file the bot uploaded and completed into a channel. */
export interface UploadedFile {
  id: string;
  name: string;
  title: string;
  channel: string;
  threadTs?: string;
  bytes: Buffer;
  /** The message posted with the file (initial_comment). */
  initialComment?: string;
  /** When files.completeUploadExternal shared it. */
  completedAt: number;
}

/** A person's facts beyond the name. */
export interface PersonProfile {
  /** `multi`: a multi-channel guest (restricted); `single`: a single-channel guest (ultra-restricted). */
  guest?: 'multi' | 'single';
  /** Their home workspace, when not this one (Slack Connect). */
  teamId?: string;
  enterpriseId?: string;
  bot?: boolean;
}

export interface WorkspaceInfo {
  teamId: string;
  /** The Enterprise Grid org, when the workspace is in one. */
  enterpriseId?: string;
  botUserId: string;
  botId: string;
}

/** What a method answers: Slack's JSON, always HTTP 200 for API-level errors. */
export type MethodResult = Record<string, unknown> & { ok: boolean };

export const TEXT_LIMIT = 40_000;

const fail = (error: string): MethodResult => ({ ok: false, error });

function str(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function pushTo<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

export class FakeWorkspace {
  readonly messages: PostedMessage[] = [];
  /** Messages chat.delete removed, as they last read (with their edits): what people saw, then did not. */
  readonly deleted: PostedMessage[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  readonly modals: OpenedModal[] = [];
  /** Channels the bot may not post in, with the error Slack gives (`not_in_channel`, `channel_not_found`). */
  readonly refusedChannels = new Map<string, string>();
  readonly sharedFiles = new Map<string, SharedFile>();
  /** Upload tickets: the length promised, then the bytes sent to the upload URL. */
  readonly pendingUploads = new Map<string, { name: string; length: number; bytes?: Buffer }>();
  readonly uploads: UploadedFile[] = [];
  readonly seeded: SeededMessage[] = [];
  /** users.info answers: id → display name. */
  readonly people = new Map<string, string>();
  /** What users.info says of a person beside the name (guests, Slack Connect members, bots). */
  readonly profiles = new Map<string, PersonProfile>();
  /** User groups (usergroups.users.list): id → member ids. */
  readonly groups = new Map<string, string[]>();
  readonly assistantCalls: AssistantCall[] = [];
  readonly views: PublishedView[] = [];
  /** Set: chat.startStream fails with this error, as for a workspace or app without AI streaming. */
  streamingRefusal: string | undefined;
  /** Set: a stream that got nothing for this long has ended by itself (Slack ends idle streams). */
  streamIdleMs: number | undefined;
  #seq = 0;
  #fileSeq = 0;
  /** The bot's messages by `channel/ts`, and each thread's (root included) by `channel/threadTs`: a long run posts
   * hundreds of thousands, and every update, append and replies call looks one up. */
  readonly #byTs = new Map<string, PostedMessage>();
  readonly #byThread = new Map<string, PostedMessage[]>();
  readonly #seededByThread = new Map<string, SeededMessage[]>();
  /** Each channel's top-level messages, the bot's and people's (what conversations.history reads). */
  readonly #topLevel = new Map<string, Array<PostedMessage | SeededMessage>>();

  nextFileId(): string {
    this.#fileSeq += 1;
    return `F${String(this.#fileSeq).padStart(8, '0')}`;
  }

  constructor(readonly info: WorkspaceInfo) {}

  /** The bot's message at `ts` in `channel`, if it is still there. */
  messageAt(channel: string | undefined, ts: string | undefined): PostedMessage | undefined {
    return this.#byTs.get(`${channel}/${ts}`);
  }

  /** The bot's messages of a thread in posting order: its root (if the bot posted it) and the replies. */
  threadOf(channel: string, threadTs: string): PostedMessage[] {
    return [...(this.#byThread.get(`${channel}/${threadTs}`) ?? [])];
  }

  #add(message: PostedMessage): void {
    this.messages.push(message);
    this.#byTs.set(`${message.channel}/${message.ts}`, message);
    pushTo(this.#byThread, `${message.channel}/${message.threadTs ?? message.ts}`, message);
    if (message.threadTs === undefined) pushTo(this.#topLevel, message.channel, message);
  }

  /** Something a person (or another bot) wrote, that conversations.replies/history return beside the bot's own. */
  seed(message: SeededMessage): void {
    this.seeded.push(message);
    pushTo(this.#seededByThread, `${message.channel}/${message.threadTs ?? message.ts}`, message);
    if (message.threadTs === undefined || message.threadTs === message.ts) pushTo(this.#topLevel, message.channel, message);
  }

  /** The workspace's next message ts: the bot's posts and people's messages share one clock, as in Slack. */
  nextTs(): string {
    this.#seq += 1;
    return `1800000000.${String(this.#seq).padStart(6, '0')}`;
  }

  call(method: string, params: Record<string, unknown>): MethodResult {
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://fake.slack.test/', team: 'Fake Team', user: 'skillbot', team_id: this.info.teamId, user_id: this.info.botUserId, bot_id: this.info.botId, ...(this.info.enterpriseId ? { enterprise_id: this.info.enterpriseId, is_enterprise_install: false } : {}) };
      case 'chat.postMessage':
        return this.#post(params);
      case 'chat.update':
        return this.#update(params);
      case 'chat.postEphemeral':
        return this.#ephemeral(params);
      case 'conversations.replies':
        return this.#replies(params);
      case 'conversations.history':
        return this.#history(params);
      case 'users.info': {
        const id = str(params, 'user');
        const name = id ? this.people.get(id) : undefined;
        if (!id || name === undefined) return fail('user_not_found');
        return { ok: true, user: this.#user(id, name) };
      }
      case 'usergroups.users.list': {
        const members = this.groups.get(str(params, 'usergroup') ?? '');
        return members === undefined ? fail('no_such_subteam') : { ok: true, users: [...members] };
      }
      case 'files.getUploadURLExternal':
        return this.#uploadTicket(params);
      case 'files.completeUploadExternal':
        return this.#completeUpload(params);
      case 'chat.startStream':
        return this.#startStream(params);
      case 'chat.appendStream':
      case 'chat.stopStream':
        return this.#appendStream(params, method === 'chat.stopStream');
      case 'chat.delete':
        return this.#delete(params);
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setTitle':
      case 'assistant.threads.setSuggestedPrompts':
        return this.#assistant(method, params);
      case 'views.publish':
        return this.#publish(params);
      case 'views.open':
        return this.#openModal(params);
      default:
        return fail('unknown_method');
    }
  }

  /** A user object as users.info gives it: guests are restricted (multi-channel) or ultra-restricted (single-channel);
   * a Slack Connect member carries their home team_id, and an Enterprise Grid member enterprise_user. */
  #user(id: string, name: string): Record<string, unknown> {
    const profile = this.profiles.get(id) ?? {};
    const teamId = profile.teamId ?? this.info.teamId;
    return {
      id,
      team_id: teamId,
      name: name.toLowerCase().replace(/\s+/g, '.'),
      real_name: name,
      deleted: false,
      is_bot: profile.bot ?? false,
      is_app_user: false,
      is_restricted: profile.guest === 'multi' || profile.guest === 'single',
      is_ultra_restricted: profile.guest === 'single',
      ...(profile.enterpriseId ? { enterprise_user: { id, enterprise_id: profile.enterpriseId, enterprise_name: 'Grid', is_admin: false, is_owner: false, teams: [teamId] } } : {}),
      profile: { display_name: name, real_name: name, team: teamId },
    };
  }

  #content(params: Record<string, unknown>): { text: string; blocks?: unknown[]; markdown?: boolean } | string {
    const text = typeof params.text === 'string' ? params.text : '';
    const blocks = blocksOf(params);
    if (blocks === 'invalid') return 'invalid_blocks';
    if (typeof params.markdown_text === 'string') {
      // Slack takes `markdown_text` alone: not with `text` or `blocks`.
      if (text !== '' || (blocks !== undefined && blocks.length > 0)) return 'invalid_arguments';
      if (params.markdown_text === '') return 'no_text';
      if (params.markdown_text.length > MARKDOWN_LIMIT) return 'msg_too_long';
      return { text: params.markdown_text, blocks: [], markdown: true };
    }
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
    const message: PostedMessage = { channel, ts: this.nextTs(), text: content.text, edits: [], postedAt: Date.now(), ...(threadTs ? { threadTs } : {}), ...(content.blocks ? { blocks: content.blocks } : {}) };
    this.#add(message);
    return { ok: true, channel, ts: message.ts, message: { type: 'message', user: this.info.botUserId, bot_id: this.info.botId, text: message.text, ts: message.ts, ...(threadTs ? { thread_ts: threadTs } : {}) } };
  }

  #update(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    const message = this.messageAt(channel, str(params, 'ts'));
    if (!message) return fail(channel ? 'message_not_found' : 'channel_not_found');
    const content = this.#content(params);
    if (typeof content === 'string') return fail(content);
    message.edits.push({ text: message.text, at: message.updatedAt ?? message.postedAt, ...(message.blocks ? { blocks: message.blocks } : {}) });
    message.text = content.text;
    // An empty blocks list clears the blocks, as in Slack.
    if (content.blocks !== undefined) message.blocks = content.blocks.length > 0 ? content.blocks : undefined;
    // Rewritten: what was streamed into it (task cards) is gone.
    delete message.tasks;
    if (content.markdown) message.markdown = true;
    else delete message.markdown;
    message.updatedAt = Date.now();
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  }

  /** Messages as the API returns them, oldest first: the bot's own (PostedMessage) and people's (seeded). */
  #asApi(messages: Array<PostedMessage | SeededMessage>): Array<Record<string, unknown> & { ts: string; thread_ts?: string }> {
    return messages
      .map((message) =>
        'edits' in message
          ? { type: 'message', ts: message.ts, user: this.info.botUserId, bot_id: this.info.botId, text: message.text, ...(message.threadTs ? { thread_ts: message.threadTs } : {}), ...(message.blocks ? { blocks: message.blocks } : {}) }
          : {
              type: 'message',
              ts: message.ts,
              text: message.text,
              ...(message.user ? { user: message.user } : {}),
              ...(message.botId ? { bot_id: message.botId, subtype: 'bot_message', username: message.botName ?? 'a bot', bot_profile: { name: message.botName ?? 'a bot' } } : {}),
              ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
            },
      )
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  /** The thread's root then its replies, oldest first, up to `latest`; `limit` per page with a cursor (an index). */
  #replies(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    const ts = str(params, 'ts');
    if (!channel || !ts) return fail('invalid_arguments');
    const latest = Number(str(params, 'latest') ?? Infinity);
    const oldest = Number(str(params, 'oldest') ?? 0);
    const inclusive = params.inclusive === true || params.inclusive === 'true';
    const inRange = (at: number) => (inclusive ? at <= latest && at >= oldest : at < latest && at > oldest);
    // The parent message comes first whatever the range, as in Slack.
    const thread = `${channel}/${ts}`;
    const all = this.#asApi([...(this.#byThread.get(thread) ?? []), ...(this.#seededByThread.get(thread) ?? [])]).filter((message) => message.ts === ts || (message.thread_ts === ts && inRange(Number(message.ts))));
    if (all.length === 0) return fail('thread_not_found');
    const limit = Math.min(Number(params.limit ?? 1000) || 1000, 1000);
    const start = Number(str(params, 'cursor') ?? 0);
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : '';
    return { ok: true, messages: page, has_more: next !== '', response_metadata: { next_cursor: next } };
  }

  /** The channel's top-level messages (and broadcasts) before `latest`, newest first. */
  #history(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    if (!channel) return fail('channel_not_found');
    const latest = Number(str(params, 'latest') ?? Infinity);
    const limit = Math.min(Number(params.limit ?? 100) || 100, 999);
    const top = this.#asApi(this.#topLevel.get(channel) ?? []).filter((message) => Number(message.ts) < latest);
    return { ok: true, messages: top.reverse().slice(0, limit), has_more: top.length > limit };
  }

  /** The fake's base URL, for upload URLs (set by the server once it listens). */
  baseUrl = '';

  #uploadTicket(params: Record<string, unknown>): MethodResult {
    const filename = str(params, 'filename');
    const length = Number(params.length);
    if (!filename) return fail('invalid_arguments');
    if (!Number.isInteger(length) || length < 0) return fail('invalid_arguments');
    const id = this.nextFileId();
    this.pendingUploads.set(id, { name: filename, length });
    return { ok: true, upload_url: `${this.baseUrl}/upload/${id}`, file_id: id };
  }

  #completeUpload(params: Record<string, unknown>): MethodResult {
    let files: unknown = params.files;
    if (typeof files === 'string') {
      try {
        files = JSON.parse(files);
      } catch {
        return fail('invalid_arguments');
      }
    }
    if (!Array.isArray(files) || files.length === 0) return fail('invalid_arguments');
    const channel = str(params, 'channel_id');
    if (channel && this.refusedChannels.has(channel)) return fail(this.refusedChannels.get(channel) ?? 'not_in_channel');
    const threadTs = str(params, 'thread_ts');
    const initialComment = str(params, 'initial_comment');
    if (threadTs && !channel) return fail('invalid_arguments');
    const done: Array<Record<string, unknown>> = [];
    for (const entry of files as Array<{ id?: unknown; title?: unknown }>) {
      const id = typeof entry.id === 'string' ? entry.id : '';
      const pending = this.pendingUploads.get(id);
      // Slack refuses a file whose bytes never arrived, or arrived at another length.
      if (!pending?.bytes || pending.bytes.length !== pending.length) return fail('file_not_found');
      this.pendingUploads.delete(id);
      const title = typeof entry.title === 'string' ? entry.title : pending.name;
      if (channel) this.uploads.push({ id, name: pending.name, title, channel, bytes: pending.bytes, completedAt: Date.now(), ...(threadTs ? { threadTs } : {}), ...(initialComment ? { initialComment } : {}) });
      done.push({ id, name: pending.name, title });
    }
    return { ok: true, files: done };
  }

  #startStream(params: Record<string, unknown>): MethodResult {
    if (this.streamingRefusal) return fail(this.streamingRefusal);
    const channel = str(params, 'channel');
    const threadTs = str(params, 'thread_ts');
    if (!channel) return fail('channel_not_found');
    if (!threadTs) return fail('invalid_arguments');
    // Outside a DM Slack needs to know whom the streamed answer is for.
    if (!channel.startsWith('D') && !str(params, 'recipient_team_id')) return fail('missing_recipient_team_id');
    if (!channel.startsWith('D') && !str(params, 'recipient_user_id')) return fail('missing_recipient_user_id');
    const content = streamContent(params);
    if (typeof content === 'string') return fail(content);
    if (content.text === '' && content.blocks.length === 0 && content.tasks.length === 0) return fail('no_text');
    const message: PostedMessage = { channel, ts: this.nextTs(), threadTs, text: content.text, edits: [], postedAt: Date.now(), stream: 'streaming', markdown: true };
    applyStream(message, content, false);
    this.#add(message);
    return { ok: true, channel, ts: message.ts };
  }

  #appendStream(params: Record<string, unknown>, stop: boolean): MethodResult {
    const channel = str(params, 'channel');
    const message = this.messageAt(channel, str(params, 'ts'));
    if (!message) return fail('message_not_found');
    if (message.stream === 'streaming' && this.streamIdleMs !== undefined && Date.now() - (message.updatedAt ?? message.postedAt) > this.streamIdleMs) message.stream = 'stopped';
    if (message.stream !== 'streaming') return fail('message_not_in_streaming_state');
    const content = streamContent(params);
    if (typeof content === 'string') return fail(content);
    if (content.text === '' && content.blocks.length === 0 && content.tasks.length === 0 && !stop) return fail('no_text');
    if (message.text.length + content.text.length > TEXT_LIMIT) return fail('msg_too_long');
    if (content.text !== '') message.edits.push({ text: message.text, at: message.updatedAt ?? message.postedAt });
    applyStream(message, content, true);
    if (stop) message.stream = 'stopped';
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  #delete(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    const message = this.messageAt(channel, str(params, 'ts'));
    if (!message) return fail('message_not_found');
    this.messages.splice(this.messages.indexOf(message), 1);
    this.#byTs.delete(`${message.channel}/${message.ts}`);
    for (const list of [this.#byThread.get(`${message.channel}/${message.threadTs ?? message.ts}`), this.#topLevel.get(message.channel)]) {
      if (list?.includes(message)) list.splice(list.indexOf(message), 1);
    }
    this.deleted.push(message);
    return { ok: true, channel, ts: str(params, 'ts') };
  }

  #assistant(method: string, params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel_id');
    const threadTs = str(params, 'thread_ts');
    const name = method.slice('assistant.threads.'.length) as AssistantCall['method'];
    // Status and title belong to a thread; prompts may be for an agent_view DM itself, without one.
    if (!channel || (!threadTs && name !== 'setSuggestedPrompts')) return fail('invalid_arguments');
    const text = String(params[name === 'setStatus' ? 'status' : 'title'] ?? '');
    let prompts: unknown = params.prompts;
    if (typeof prompts === 'string') prompts = JSON.parse(prompts) as unknown;
    if (name === 'setSuggestedPrompts' && (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4)) return fail('invalid_arguments');
    this.assistantCalls.push({ method: name, channel, ...(threadTs ? { threadTs } : {}), text, at: Date.now(), ...(Array.isArray(prompts) ? { prompts: prompts as AssistantCall['prompts'] } : {}) });
    return { ok: true };
  }

  #publish(params: Record<string, unknown>): MethodResult {
    const userId = str(params, 'user_id');
    let view: unknown = params.view;
    if (typeof view === 'string') view = JSON.parse(view) as unknown;
    const shaped = view as { type?: unknown; blocks?: unknown } | undefined;
    if (!userId) return fail('invalid_arguments');
    if (shaped?.type !== 'home' || !Array.isArray(shaped.blocks)) return fail('invalid_arguments');
    if (shaped.blocks.length > 100) return fail('invalid_blocks');
    this.views.push({ userId, view: { type: 'home', blocks: shaped.blocks }, at: Date.now() });
    return { ok: true, view: { id: `V${this.views.length}`, type: 'home' } };
  }

  /** Slack's checks of a modal: a trigger id, type modal, a title of at most 24 characters, at most 100 blocks. */
  #openModal(params: Record<string, unknown>): MethodResult {
    const triggerId = str(params, 'trigger_id');
    let view: unknown = params.view;
    if (typeof view === 'string') view = JSON.parse(view) as unknown;
    const shaped = view as OpenedModal['view'] & { title?: { text?: string } };
    if (!triggerId) return fail('invalid_trigger_id');
    if (shaped?.type !== 'modal' || !Array.isArray(shaped.blocks) || shaped.blocks.length > 100) return fail('invalid_arguments');
    if (typeof shaped.title?.text !== 'string' || shaped.title.text.length > 24) return fail('invalid_arguments');
    const id = `VMODAL${this.modals.length + 1}`;
    this.modals.push({ id, triggerId, view: shaped, at: Date.now() });
    return { ok: true, view: { id, type: 'modal', callback_id: shaped.callback_id } };
  }

  #ephemeral(params: Record<string, unknown>): MethodResult {
    const channel = str(params, 'channel');
    const user = str(params, 'user');
    if (!channel) return fail('channel_not_found');
    if (!user) return fail('user_not_in_channel');
    const content = this.#content(params);
    if (typeof content === 'string') return fail(content);
    const threadTs = str(params, 'thread_ts');
    this.ephemerals.push({ channel, user, text: content.text, at: Date.now(), ...(threadTs ? { threadTs } : {}), ...(content.blocks ? { blocks: content.blocks } : {}) });
    return { ok: true, message_ts: this.nextTs() };
  }
}
