// The state of the fake Discord: one guild, its channels and threads, DMs, messages, interactions, commands.
import { type AllowedMentions, pingsOf } from './mentions.ts';
import { Snowflakes } from './snowflake.ts';

export interface FakeUser {
  id: string;
  username: string;
  bot?: boolean;
  /** The guild roles this member holds (role ids). */
  roles?: string[];
}

export const CHANNEL_TYPES = { text: 0, dm: 1, publicThread: 11 } as const;

export interface FakeChannel {
  id: string;
  type: number;
  name: string;
  guildId?: string;
  parentId?: string;
  ownerId?: string;
  /** DM channels: the other person. */
  recipient?: FakeUser;
}

export type MessageSource = 'user' | 'channel' | 'interaction' | 'webhook';

/** A file on a message: a person's attachment, or one the bot uploaded (multipart). */
export interface FakeAttachment {
  id: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface FakeMessage {
  id: string;
  channelId: string;
  author: FakeUser;
  content: string;
  components: unknown[];
  flags: number;
  /** Seen only by the person who used the interaction. */
  ephemeral: boolean;
  deleted: boolean;
  /** Every content the message has had, the current one last. */
  history: string[];
  /** The allowed_mentions the bot sent (undefined: none sent, so Discord parsed everything). */
  allowedMentions: AllowedMentions | undefined;
  /** Who Discord would notify for this message (see mentions.ts). */
  pings: string[];
  source: MessageSource;
  interactionId?: string;
  /** The nonce the bot sent with enforce_nonce (Discord then drops a repeat within minutes). */
  nonce?: string;
  /** Files on the message (a person's, or the bot's uploads), served under the fake's /attachments/ path as
   * Discord's CDN serves them; an edit that names no `attachments` keeps them, as on Discord. */
  attachments: FakeAttachment[];
  createdAt: number;
}

export interface CommandRegistration {
  /** `global` or the guild id. */
  scope: string;
  commands: Array<Record<string, unknown>>;
  at: number;
}

export interface FakeInteraction {
  id: string;
  token: string;
  type: number;
  channelId: string;
  user: FakeUser;
  createdAt: number;
  /** The callback type the bot answered with (4 reply, 5 deferred, 6 deferred update, 7 update, 8 choices). */
  callbackType?: number;
  /** Milliseconds from dispatch to the callback. */
  callbackAfterMs?: number;
  callbackData?: Record<string, unknown>;
  originalMessageId?: string;
  /** The message a component sat on. */
  componentMessageId?: string;
  tokenExpired: boolean;
}

export class DiscordWorld {
  readonly ids = new Snowflakes();
  /** Where attachments are served (the fake's own origin, set once it listens). */
  cdnUrl = '';
  readonly channels = new Map<string, FakeChannel>();
  readonly messages: FakeMessage[] = [];
  readonly interactions = new Map<string, FakeInteraction>();
  readonly registrations: CommandRegistration[] = [];
  readonly typing: string[] = [];
  readonly users = new Map<string, FakeUser>();
  readonly bot: FakeUser;
  readonly guildId: string;
  /** The bot's application id, which is also its user id (as for every bot made since 2019). */
  readonly applicationId: string;
  /** The role Discord makes for the bot when it joins a guild; the @ menu may insert it for "@skillbot". */
  readonly botRoleId: string;

  constructor(botName: string) {
    this.applicationId = this.ids.next();
    this.bot = { id: this.applicationId, username: botName, bot: true };
    this.guildId = this.ids.next();
    this.botRoleId = this.ids.next();
  }

  addUser(username: string, options: { bot?: boolean; roles?: string[] } = {}): FakeUser {
    const user = { id: this.ids.next(), username, ...(options.bot ? { bot: true } : {}), ...(options.roles ? { roles: options.roles } : {}) };
    this.users.set(user.id, user);
    return user;
  }

  addChannel(channel: Omit<FakeChannel, 'id'> & { id?: string }): FakeChannel {
    const full = { ...channel, id: channel.id ?? this.ids.next() };
    this.channels.set(full.id, full);
    return full;
  }

  /** The DM channel between the bot and a user (made on first use, as Discord does). */
  dmWith(user: FakeUser): FakeChannel {
    for (const channel of this.channels.values()) {
      if (channel.type === CHANNEL_TYPES.dm && channel.recipient?.id === user.id) return channel;
    }
    return this.addChannel({ type: CHANNEL_TYPES.dm, name: '', recipient: user });
  }

  message(id: string): FakeMessage | undefined {
    return this.messages.find((message) => message.id === id);
  }

  addMessage(input: {
    channelId: string;
    author: FakeUser;
    content?: string;
    components?: unknown[];
    flags?: number;
    allowedMentions?: AllowedMentions;
    source: MessageSource;
    interactionId?: string;
    nonce?: string;
    id?: string;
    attachments?: FakeAttachment[];
  }): FakeMessage {
    const content = input.content ?? '';
    const flags = input.flags ?? 0;
    const message: FakeMessage = {
      id: input.id ?? this.ids.next(),
      attachments: input.attachments ?? [],
      channelId: input.channelId,
      author: input.author,
      content,
      components: input.components ?? [],
      flags,
      ephemeral: (flags & 64) !== 0,
      deleted: false,
      history: [content],
      allowedMentions: input.allowedMentions,
      pings: input.source === 'user' ? [] : pingsOf(content, input.allowedMentions),
      source: input.source,
      createdAt: Date.now(),
      ...(input.interactionId ? { interactionId: input.interactionId } : {}),
      ...(input.nonce ? { nonce: input.nonce } : {}),
    };
    this.messages.push(message);
    return message;
  }

  editMessage(message: FakeMessage, body: Record<string, unknown>): void {
    if (typeof body.content === 'string') {
      message.content = body.content;
      message.history.push(body.content);
    }
    if (Array.isArray(body.components)) message.components = body.components;
    // Components V2 can be turned on by an edit (a deferred reply), never off.
    if (typeof body.flags === 'number') message.flags |= body.flags & (1 << 15);
    if ('allowed_mentions' in body) message.allowedMentions = body.allowed_mentions as AllowedMentions;
    message.pings = [...new Set([...message.pings, ...pingsOf(message.content, message.allowedMentions)])];
    // Discord clears the "loading" flag of a deferred reply once it gets content.
    message.flags &= ~128;
  }

  userPayload(user: FakeUser): Record<string, unknown> {
    return { id: user.id, username: user.username, discriminator: '0', global_name: user.username, avatar: null, bot: user.bot ?? false };
  }

  memberPayload(user: FakeUser, withUser: boolean): Record<string, unknown> {
    return {
      ...(withUser ? { user: this.userPayload(user) } : {}),
      roles: [...(user.roles ?? [])],
      joined_at: new Date(0).toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      nick: null,
      avatar: null,
      premium_since: null,
      pending: false,
      permissions: '2199023255551',
    };
  }

  channelPayload(channel: FakeChannel): Record<string, unknown> {
    if (channel.type === CHANNEL_TYPES.dm) {
      return { id: channel.id, type: channel.type, last_message_id: null, recipients: channel.recipient ? [this.userPayload(channel.recipient)] : [] };
    }
    const base = { id: channel.id, type: channel.type, name: channel.name, guild_id: channel.guildId, rate_limit_per_user: 0, flags: 0 };
    if (channel.type === CHANNEL_TYPES.publicThread) {
      return {
        ...base,
        parent_id: channel.parentId,
        owner_id: channel.ownerId,
        message_count: 0,
        member_count: 1,
        total_message_sent: 0,
        thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
      };
    }
    return { ...base, position: 0, permission_overwrites: [], parent_id: null, nsfw: false, topic: null, last_message_id: null };
  }

  messagePayload(message: FakeMessage): Record<string, unknown> {
    const channel = this.channels.get(message.channelId);
    const mentioned = [...message.content.matchAll(/<@!?(\d+)>/g)]
      .map((match) => (match[1] === this.bot.id ? this.bot : this.users.get(match[1] ?? '')))
      .filter((user): user is FakeUser => user !== undefined);
    return {
      id: message.id,
      type: 0,
      channel_id: message.channelId,
      ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
      author: this.userPayload(message.author),
      ...(channel?.guildId ? { member: this.memberPayload(message.author, false) } : {}),
      content: message.content,
      timestamp: new Date(message.createdAt).toISOString(),
      edited_timestamp: message.history.length > 1 ? new Date().toISOString() : null,
      tts: false,
      mention_everyone: message.pings.includes('everyone'),
      mentions: mentioned.map((user) => this.userPayload(user)),
      mention_roles: [...new Set([...message.content.matchAll(/<@&(\d+)>/g)].map((match) => match[1]))],
      attachments: message.attachments.map((file) => {
        const url = `${this.cdnUrl}/attachments/${message.channelId}/${file.id}/${encodeURIComponent(file.filename)}`;
        return { id: file.id, filename: file.filename, size: file.bytes.length, url, proxy_url: url, content_type: file.contentType };
      }),
      embeds: [],
      pinned: false,
      flags: message.flags,
      components: message.components,
      ...(channel ? { channel_type: channel.type } : {}),
    };
  }
}
