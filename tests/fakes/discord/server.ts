// A loopback Discord: REST under /api/v10 and the gateway WebSocket at /gateway, on one port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { FakeGateway, type GatewayStats, INTENTS } from './gateway.ts';
import { answerRest, type RestContext, type RestRequest } from './rest.ts';
import { type ShownModal, shownModal } from './modals.ts';
import { UserActions } from './userActions.ts';
import { CHANNEL_TYPES, DiscordWorld, type FakeChannel, type FakeInteraction, type FakeMessage, type FakeUser } from './world.ts';

export interface FakeDiscordOptions {
  token?: string;
  /** HELLO's heartbeat interval (default 1000 ms, so tests see heartbeats and their ACKs). */
  heartbeatIntervalMs?: number;
  /** How long an interaction waits for its first answer (default 3000 ms, as on Discord). */
  ackWindowMs?: number;
  /** How long an interaction token works (default 15 minutes). */
  tokenTtlMs?: number;
  /** False: the privileged MessageContent intent is off in the portal (IDENTIFY asking for it is closed with 4014). */
  messageContentAllowed?: boolean;
}

export interface RecordedRestRequest extends RestRequest {
  status: number;
  response: unknown;
}

export interface FakeDiscord {
  /** DISCORD_API_URL: `http://127.0.0.1:PORT/api`. */
  readonly url: string;
  readonly token: string;
  readonly bot: FakeUser;
  readonly guildId: string;
  /** A text channel of the guild, `#general`. */
  readonly general: FakeChannel;
  readonly world: DiscordWorld;
  readonly requests: RecordedRestRequest[];
  readonly gateway: GatewayStats;
  /** True while the bot's gateway session has an open socket. */
  readonly connected: boolean;
  /** A person (or, with `bot`, another bot's account) in the guild, holding `roles`. */
  addUser(username: string, options?: { bot?: boolean; roles?: string[] }): FakeUser;
  /** A new role id of the guild (for `access.groups`). */
  addRole(): string;
  /** A person's message in a channel or thread. */
  /** A public thread a person opens in #general (the gateway announces it, as Discord does). */
  openThread(user: FakeUser, name: string): FakeChannel;
  /** A person's message; `files` become its attachments (served by the fake as Discord's CDN serves them). */
  say(user: FakeUser, channel: FakeChannel, content: string, files?: Array<{ name: string; contentType: string; bytes: Buffer | string }>): FakeMessage;
  /** A person's DM to the bot. */
  dm(user: FakeUser, content: string): FakeMessage;
  slash(user: FakeUser, channel: FakeChannel, name: string, options?: Record<string, string>): FakeInteraction;
  autocomplete(user: FakeUser, channel: FakeChannel, name: string, options: Record<string, string>, focused: string): FakeInteraction;
  click(user: FakeUser, message: FakeMessage, customId: string): FakeInteraction;
  /** Picks `values` in a message's string select menu. */
  select(user: FakeUser, message: FakeMessage, customId: string, values: string[]): FakeInteraction;
  /** The modal the bot answered an interaction with, as the person sees it (undefined: none). */
  modalOf(interaction: FakeInteraction): ShownModal | undefined;
  /** Submits that modal; `answers` by field label (a select's values as an array or one string). */
  submitModal(user: FakeUser, opened: FakeInteraction, answers: Record<string, string | string[]>): FakeInteraction;
  /** Messages of a channel, oldest first, without deleted ones (ephemeral ones only when asked). */
  messagesIn(channelId: string, options?: { ephemeral?: boolean }): FakeMessage[];
  threads(): FakeChannel[];
  /** Makes an interaction's webhook token stop working, as 15 minutes would. */
  expireToken(interaction: FakeInteraction): void;
  /** Cuts the gateway socket without a close frame. */
  dropConnection(): void;
  /** Delivers a person's message again (Discord may repeat an event, e.g. around a reconnect). */
  redeliver(message: FakeMessage): void;
  /** Polls until `probe` returns a value (not undefined/false/null); fails naming `what` after `timeoutMs`. */
  waitFor<T>(probe: () => T | undefined | null | false, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** A JSON body, or a multipart one (discord.js sends files as `payload_json` plus `files[n]` parts). */
async function readBody(req: IncomingMessage): Promise<{ body: unknown; files?: RestRequest['files'] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData();
    const files: NonNullable<RestRequest['files']> = [];
    for (const [name, value] of form.entries()) {
      if (/^files\[\d+\]$/.test(name) && typeof value !== 'string') {
        files.push({ filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
      }
    }
    const payload = form.get('payload_json');
    return { body: typeof payload === 'string' ? (JSON.parse(payload) as unknown) : {}, files };
  }
  const text = raw.toString('utf8');
  return { body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** GET of an attachment, as Discord's CDN serves it (no token needed). */
function serveAttachment(world: DiscordWorld, path: string, res: ServerResponse): boolean {
  const match = /^\/attachments\/(\d+)\/(\d+)\//.exec(path);
  if (!match) return false;
  const file = world.messages.flatMap((message) => (message.channelId === match[1] ? message.attachments : [])).find((candidate) => candidate.id === match[2]);
  if (!file) {
    res.writeHead(404).end();
    return true;
  }
  res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) }).end(file.bytes);
  return true;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = options.token ?? 'fake-bot-token';
  const world = new DiscordWorld('skillbot');
  const general = world.addChannel({ type: CHANNEL_TYPES.text, name: 'general', guildId: world.guildId });
  const gateway = new FakeGateway(world, {
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1000,
    messageContentAllowed: options.messageContentAllowed ?? true,
  });
  const requests: RecordedRestRequest[] = [];
  const ctx: RestContext = {
    world,
    gateway,
    token,
    gatewayUrl: '',
    rules: { ackWindowMs: options.ackWindowMs ?? 3000, tokenTtlMs: options.tokenTtlMs ?? 15 * 60_000 },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && serveAttachment(world, url.pathname, res)) return;
    if (!url.pathname.startsWith('/api/v10/')) return send(res, 404, { code: 0, message: '404: Not Found' });
    readBody(req).then(
      ({ body, files }) => {
        const request: RestRequest = {
          method: req.method ?? 'GET',
          path: decodeURIComponent(url.pathname.slice('/api/v10'.length)),
          query: Object.fromEntries(url.searchParams),
          body,
          auth: req.headers.authorization,
          ...(files ? { files } : {}),
        };
        const answer = answerRest(ctx, request);
        requests.push({ ...request, status: answer.status, response: answer.body });
        send(res, answer.status, answer.body);
      },
      () => send(res, 400, { code: 50109, message: 'The request body contains invalid JSON.' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  world.cdnUrl = `http://127.0.0.1:${port}`;
  ctx.gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
  gateway.attach(server, ctx.gatewayUrl);
  const actions = new UserActions(world, gateway);

  return {
    url: `http://127.0.0.1:${port}/api`,
    token,
    bot: world.bot,
    guildId: world.guildId,
    general,
    world,
    requests,
    gateway: gateway.stats,
    get connected() {
      return gateway.connected;
    },
    addUser: (username, options) => world.addUser(username, options),
    addRole: () => world.ids.next(),
    openThread(user, name) {
      const thread = world.addChannel({ type: CHANNEL_TYPES.publicThread, name, guildId: world.guildId, parentId: general.id, ownerId: user.id });
      gateway.dispatch({ t: 'THREAD_CREATE', d: { ...world.channelPayload(thread), newly_created: true }, intent: INTENTS.Guilds });
      return thread;
    },
    say: (user, channel, content, files) => actions.say(user, channel, content, files),
    dm: (user, content) => actions.say(user, world.dmWith(user), content),
    slash: (user, channel, name, commandOptions) => actions.slash(user, channel, name, commandOptions),
    autocomplete: (user, channel, name, commandOptions, focused) => actions.autocomplete(user, channel, name, commandOptions, focused),
    click: (user, message, customId) => actions.click(user, message, customId),
    select: (user, message, customId, values) => actions.select(user, message, customId, values),
    modalOf: (interaction) => (interaction.callbackType === 9 && interaction.callbackData ? shownModal(interaction.callbackData) : undefined),
    submitModal: (user, opened, answers) => actions.submitModal(user, opened, answers),
    messagesIn: (channelId, filter = {}) =>
      world.messages.filter((message) => message.channelId === channelId && !message.deleted && (filter.ephemeral === true || !message.ephemeral)),
    threads: () => [...world.channels.values()].filter((channel) => channel.type === CHANNEL_TYPES.publicThread),
    expireToken(interaction) {
      interaction.tokenExpired = true;
    },
    dropConnection: () => gateway.drop(),
    redeliver: (message) => actions.redeliver(message),
    async waitFor(probe, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value !== undefined && value !== null && value !== false) return value;
        if (Date.now() > deadline) throw new Error(`fake Discord: timed out waiting for ${what}`);
        await delay(20);
      }
    },
    async close() {
      gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
