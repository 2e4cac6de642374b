// The gateway WebSocket: HELLO, heartbeat ACK, IDENTIFY → READY + GUILD_CREATE, RESUME with replay, intents.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { CHANNEL_TYPES, type DiscordWorld } from './world.ts';

export const INTENTS = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 } as const;

export interface GatewayStats {
  connections: number;
  identifies: number;
  resumes: number;
  heartbeats: number;
  /** The query string of every connection (`v=10&encoding=json`). */
  queries: string[];
  /** Intents of the last IDENTIFY. */
  intents: number;
}

export interface Dispatch {
  t: string;
  d: Record<string, unknown>;
  /** Sent only when the session asked for this intent. */
  intent?: number;
  /** Message content is withheld without the MessageContent intent (unless the bot is mentioned or it is a DM). */
  contentGated?: boolean;
}

interface Session {
  id: string;
  seq: number;
  intents: number;
  log: Array<{ s: number; t: string; d: Record<string, unknown> }>;
  socket?: WebSocket;
}

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** False: the MessageContent intent is not enabled in the portal, and asking for it closes with 4014. */
  messageContentAllowed: boolean;
}

export class FakeGateway {
  readonly stats: GatewayStats = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0, queries: [], intents: 0 };
  /** Discord lets one bot hold several sessions (several processes); each gets every event. */
  readonly #sessions = new Map<string, Session>();
  #server: WebSocketServer | undefined;
  #url = '';

  constructor(
    private readonly world: DiscordWorld,
    private readonly options: GatewayOptions,
  ) {}

  /** Listen for gateway connections at `/gateway` of the fake's HTTP server. */
  attach(server: Server, url: string): void {
    this.#url = url;
    this.#server = new WebSocketServer({ server, path: '/gateway' });
    this.#server.on('connection', (socket, request) => this.#onConnection(socket, new URL(request.url ?? '/', 'ws://fake').search.slice(1)));
  }

  /** True while some session's socket is open. */
  get connected(): boolean {
    return [...this.#sessions.values()].some((session) => session.socket?.readyState === 1);
  }

  dispatch(event: Dispatch): void {
    for (const session of this.#sessions.values()) this.#dispatchTo(session, event);
  }

  #dispatchTo(session: Session, event: Dispatch): void {
    if (event.intent !== undefined && (session.intents & event.intent) === 0) return;
    let d = event.d;
    if (event.contentGated && (session.intents & INTENTS.MessageContent) === 0) {
      d = { ...d, content: '', embeds: [], attachments: [], components: [] };
    }
    const entry = { s: ++session.seq, t: event.t, d };
    session.log.push(entry);
    if (session.log.length > 1000) session.log.shift();
    // Without a socket the event waits in the log: a RESUME replays it, as Discord does.
    this.#send(session.socket, { op: 0, ...entry });
  }

  /** Drops every connection without a close frame (as a network failure would). */
  drop(): void {
    for (const session of this.#sessions.values()) session.socket?.terminate();
  }

  close(): void {
    for (const client of this.#server?.clients ?? []) client.terminate();
    this.#server?.close();
  }

  #send(socket: WebSocket | undefined, payload: unknown): void {
    if (socket?.readyState === 1) socket.send(JSON.stringify(payload));
  }

  #onConnection(socket: WebSocket, query: string): void {
    this.stats.connections += 1;
    this.stats.queries.push(query);
    const params = new URLSearchParams(query);
    if (params.get('v') !== '10') return socket.close(4012, 'Invalid API version');
    if (params.get('encoding') !== 'json' || params.has('compress')) return socket.close(4002, 'The fake speaks plain JSON only');
    socket.on('message', (raw) => this.#onPayload(socket, String(raw)));
    socket.on('close', (code) => {
      for (const [id, session] of this.#sessions) {
        if (session.socket !== socket) continue;
        session.socket = undefined;
        // A client closing with 1000/1001 ends its session (it cannot be resumed), as on Discord.
        if (code === 1000 || code === 1001) this.#sessions.delete(id);
      }
    });
    this.#send(socket, { op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs } });
  }

  #onPayload(socket: WebSocket, raw: string): void {
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(raw) as { op?: unknown; d?: unknown };
    } catch {
      return socket.close(4002, 'Decode error');
    }
    const d = (payload.d ?? {}) as Record<string, unknown>;
    switch (payload.op) {
      case 1:
        this.stats.heartbeats += 1;
        return this.#send(socket, { op: 11 });
      case 2:
        return this.#identify(socket, d);
      case 6:
        return this.#resume(socket, d);
      default:
        return undefined;
    }
  }

  #identify(socket: WebSocket, d: Record<string, unknown>): void {
    if (d.token !== this.options.token) return socket.close(4004, 'Authentication failed');
    const intents = Number(d.intents ?? 0);
    if ((intents & INTENTS.MessageContent) !== 0 && !this.options.messageContentAllowed) return socket.close(4014, 'Disallowed intent(s)');
    this.stats.identifies += 1;
    this.stats.intents = intents;
    // A socket that identifies again starts over; its old session ends.
    for (const [id, old] of this.#sessions) if (old.socket === socket) this.#sessions.delete(id);
    const session: Session = { id: randomUUID(), seq: 0, intents, log: [], socket };
    this.#sessions.set(session.id, session);
    const { world } = this;
    this.#dispatchTo(session, {
      t: 'READY',
      d: {
        v: 10,
        user: { ...world.userPayload(world.bot), verified: true, mfa_enabled: false, flags: 0 },
        guilds: [{ id: world.guildId, unavailable: true }],
        session_id: session.id,
        resume_gateway_url: this.#url,
        shard: [0, 1],
        application: { id: world.applicationId, flags: 0 },
      },
    });
    this.#dispatchTo(session, { t: 'GUILD_CREATE', d: this.#guildPayload(), intent: INTENTS.Guilds });
  }

  #resume(socket: WebSocket, d: Record<string, unknown>): void {
    const session = this.#sessions.get(String(d.session_id));
    if (!session || d.token !== this.options.token) return this.#send(socket, { op: 9, d: false });
    this.stats.resumes += 1;
    if (session.socket !== socket) session.socket?.terminate();
    session.socket = socket;
    const after = Number(d.seq ?? 0);
    for (const entry of session.log) if (entry.s > after) this.#send(socket, { op: 0, ...entry });
    this.#dispatchTo(session, { t: 'RESUMED', d: {} });
  }

  #guildPayload(): Record<string, unknown> {
    const { world } = this;
    const inGuild = [...world.channels.values()].filter((channel) => channel.guildId === world.guildId);
    return {
      id: world.guildId,
      name: 'Fake Guild',
      icon: null,
      owner_id: world.bot.id,
      unavailable: false,
      large: false,
      member_count: world.users.size + 1,
      joined_at: new Date(0).toISOString(),
      features: [],
      preferred_locale: 'en-US',
      premium_tier: 0,
      system_channel_id: null,
      roles: [
        { id: world.guildId, name: '@everyone', permissions: '2199023255551', position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 },
        { id: world.botRoleId, name: world.bot.username, permissions: '2199023255551', position: 1, color: 0, hoist: false, managed: true, mentionable: true, flags: 0, tags: { bot_id: world.bot.id } },
      ],
      channels: inGuild.filter((channel) => channel.type === CHANNEL_TYPES.text).map((channel) => world.channelPayload(channel)),
      threads: inGuild.filter((channel) => channel.type === CHANNEL_TYPES.publicThread).map((channel) => world.channelPayload(channel)),
      members: [{ ...world.memberPayload(world.bot, true), roles: [world.botRoleId] }],
      emojis: [],
      stickers: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }
}
