// The REST routes the bot uses, answered from the world's state; each request is recorded.
import type { FakeGateway } from './gateway.ts';
import { INTENTS } from './gateway.ts';
import type { AllowedMentions } from './mentions.ts';
import { interactionCallback, webhookRoute, type InteractionRules } from './interactionRoutes.ts';
import { messageBodyError, type ApiError } from './validation.ts';
import { CHANNEL_TYPES, type DiscordWorld, type FakeChannel } from './world.ts';

export interface RestRequest {
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  auth: string | undefined;
  /** Files of a multipart request (`files[n]` parts), in order. */
  files?: Array<{ filename: string; contentType: string; bytes: Buffer }>;
}

export interface RestAnswer {
  status: number;
  body?: unknown;
}

export interface RestContext {
  world: DiscordWorld;
  gateway: FakeGateway;
  token: string;
  gatewayUrl: string;
  rules: InteractionRules;
}

/** Discord drops a message whose enforced nonce it saw in the channel within the last few minutes. */
const NONCE_WINDOW_MS = 5 * 60_000;

const unknown = (code: number, what: string): ApiError => ({ status: 404, body: { code, message: `Unknown ${what}` } });

type Handler = (ctx: RestContext, req: RestRequest, params: Array<string | undefined>) => RestAnswer;

const asBody = (body: unknown): Record<string, unknown> => (body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {});

function channelOr404(ctx: RestContext, id: string | undefined): FakeChannel | ApiError {
  return ctx.world.channels.get(id ?? '') ?? unknown(10003, 'Channel');
}

const isError = (value: unknown): value is ApiError => typeof value === 'object' && value !== null && 'status' in value;

/** Posts a bot message in a channel and tells the gateway, as Discord does for the bot's own messages too. */
function postInChannel(ctx: RestContext, channel: FakeChannel, body: Record<string, unknown>, files: RestRequest['files'] = []): RestAnswer {
  // A message with files may have no text.
  const error = files.length > 0 ? messageBodyError({ ...body, content: body.content ?? '' }, false) : messageBodyError(body, true);
  if (error) return error;
  if (files.length > 10 || files.some((file) => file.bytes.length > 10 * 1024 * 1024)) {
    return { status: 413, body: { code: 40005, message: 'Request entity too large' } };
  }
  const nonce = body.enforce_nonce === true && typeof body.nonce === 'string' ? body.nonce : undefined;
  const repeat = nonce && ctx.world.messages.find((candidate) => candidate.channelId === channel.id && candidate.nonce === nonce && Date.now() - candidate.createdAt < NONCE_WINDOW_MS);
  if (repeat) return { status: 200, body: ctx.world.messagePayload(repeat) };
  const message = ctx.world.addMessage({
    channelId: channel.id,
    author: ctx.world.bot,
    content: typeof body.content === 'string' ? body.content : '',
    components: Array.isArray(body.components) ? body.components : [],
    flags: typeof body.flags === 'number' ? body.flags : 0,
    allowedMentions: body.allowed_mentions as AllowedMentions | undefined,
    source: 'channel',
    attachments: files.map((file) => ({ id: ctx.world.ids.next(), filename: file.filename, contentType: file.contentType, bytes: file.bytes })),
    ...(nonce ? { nonce } : {}),
  });
  const payload = ctx.world.messagePayload(message);
  const intent = channel.type === CHANNEL_TYPES.dm ? INTENTS.DirectMessages : INTENTS.GuildMessages;
  ctx.gateway.dispatch({ t: 'MESSAGE_CREATE', d: payload, intent });
  return { status: 200, body: payload };
}

function createThread(ctx: RestContext, parent: FakeChannel, body: Record<string, unknown>, starterId?: string): RestAnswer {
  if (parent.type !== CHANNEL_TYPES.text) return { status: 400, body: { code: 50024, message: 'Cannot execute action on this channel type' } };
  const name = typeof body.name === 'string' ? body.name : '';
  if (name.length < 1 || name.length > 100) return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: { name: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' }] } } } };
  if (starterId !== undefined && [...ctx.world.channels.values()].some((channel) => channel.id === starterId)) {
    return { status: 400, body: { code: 160004, message: 'A thread has already been created for this message' } };
  }
  // A thread started from a message takes the message's id, as on Discord.
  const thread = ctx.world.addChannel({
    ...(starterId ? { id: starterId } : {}),
    type: CHANNEL_TYPES.publicThread,
    name,
    guildId: parent.guildId,
    parentId: parent.id,
    ownerId: ctx.world.bot.id,
  });
  const payload = ctx.world.channelPayload(thread);
  ctx.gateway.dispatch({ t: 'THREAD_CREATE', d: { ...payload, newly_created: true }, intent: INTENTS.Guilds });
  return { status: 201, body: payload };
}

const routes: Array<[string, RegExp, Handler]> = [
  ['GET', /^\/gateway\/bot$/, (ctx) => ({
    status: 200,
    body: { url: ctx.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } },
  })],
  ['GET', /^\/users\/@me$/, (ctx) => ({ status: 200, body: ctx.world.userPayload(ctx.world.bot) })],
  ['PUT', /^\/applications\/(\d+)\/(?:guilds\/(\d+)\/)?commands$/, (ctx, req, [app, guild]) => {
    if (app !== ctx.world.applicationId) return unknown(10002, 'Application');
    if (guild !== undefined && guild !== ctx.world.guildId) return unknown(10004, 'Guild');
    if (!Array.isArray(req.body)) return { status: 400, body: { code: 50035, message: 'Invalid Form Body' } };
    const commands = req.body.map((command) => ({ ...asBody(command), id: ctx.world.ids.next(), application_id: app, version: ctx.world.ids.next(), ...(guild ? { guild_id: guild } : {}) }));
    ctx.world.registrations.push({ scope: guild ?? 'global', commands, at: Date.now() });
    return { status: 200, body: commands };
  }],
  ['GET', /^\/channels\/(\d+)$/, (ctx, _req, [id]) => {
    const channel = channelOr404(ctx, id);
    return isError(channel) ? channel : { status: 200, body: ctx.world.channelPayload(channel) };
  }],
  ['GET', /^\/channels\/(\d+)\/messages$/, (ctx, req, [id]) => {
    const channel = channelOr404(ctx, id);
    if (isError(channel)) return channel;
    const limit = Math.min(Math.max(Number(req.query.limit ?? 50) || 50, 1), 100);
    const before = req.query.before === undefined ? undefined : BigInt(req.query.before);
    // Newest first, as Discord answers.
    const messages = ctx.world.messages
      .filter((message) => message.channelId === channel.id && !message.deleted && !message.ephemeral && (before === undefined || BigInt(message.id) < before))
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
      .slice(0, limit);
    return { status: 200, body: messages.map((message) => ctx.world.messagePayload(message)) };
  }],
  ['POST', /^\/channels\/(\d+)\/messages$/, (ctx, req, [id]) => {
    const channel = channelOr404(ctx, id);
    return isError(channel) ? channel : postInChannel(ctx, channel, asBody(req.body), req.files);
  }],
  ['PATCH', /^\/channels\/(\d+)\/messages\/(\d+)$/, (ctx, req, [channelId, messageId]) => {
    const message = ctx.world.message(messageId ?? '');
    if (!message || message.deleted || message.channelId !== channelId) return unknown(10008, 'Message');
    if (message.author.id !== ctx.world.bot.id) return { status: 403, body: { code: 50005, message: 'Cannot edit a message authored by another user' } };
    const error = messageBodyError(asBody(req.body), false);
    if (error) return error;
    ctx.world.editMessage(message, asBody(req.body));
    return { status: 200, body: ctx.world.messagePayload(message) };
  }],
  ['DELETE', /^\/channels\/(\d+)\/messages\/(\d+)$/, (ctx, _req, [channelId, messageId]) => {
    const message = ctx.world.message(messageId ?? '');
    if (!message || message.deleted || message.channelId !== channelId) return unknown(10008, 'Message');
    message.deleted = true;
    return { status: 204 };
  }],
  ['POST', /^\/channels\/(\d+)\/typing$/, (ctx, _req, [id]) => {
    const channel = channelOr404(ctx, id);
    if (isError(channel)) return channel;
    ctx.world.typing.push(channel.id);
    return { status: 204 };
  }],
  ['POST', /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/, (ctx, req, [channelId, messageId]) => {
    const channel = channelOr404(ctx, channelId);
    if (isError(channel)) return channel;
    const message = ctx.world.message(messageId ?? '');
    if (!message || message.deleted || message.channelId !== channel.id || message.ephemeral) return unknown(10008, 'Message');
    return createThread(ctx, channel, asBody(req.body), message.id);
  }],
  ['POST', /^\/channels\/(\d+)\/threads$/, (ctx, req, [channelId]) => {
    const channel = channelOr404(ctx, channelId);
    return isError(channel) ? channel : createThread(ctx, channel, asBody(req.body));
  }],
  // A guild member: their roles (the bot's REST token needs no privileged intent for this).
  ['GET', /^\/guilds\/(\d+)\/members\/(\d+)$/, (ctx, _req, [guildId, userId]) => {
    const user = ctx.world.users.get(userId ?? '');
    if (guildId !== ctx.world.guildId) return unknown(10004, 'Guild');
    return user ? { status: 200, body: ctx.world.memberPayload(user, true) } : unknown(10007, 'Member');
  }],
  ['POST', /^\/users\/@me\/channels$/, (ctx, req) => {
    const user = ctx.world.users.get(String(asBody(req.body).recipient_id ?? ''));
    if (!user) return unknown(10013, 'User');
    return { status: 200, body: ctx.world.channelPayload(ctx.world.dmWith(user)) };
  }],
  ['POST', /^\/interactions\/(\d+)\/([^/]+)\/callback$/, (ctx, req, [id, token]) => interactionCallback(ctx, req, id ?? '', token ?? '')],
  ['*', /^\/webhooks\/(\d+)\/([^/]+)(?:\/messages\/([^/]+))?$/, (ctx, req, [app, token, messageId]) => webhookRoute(ctx, req, app ?? '', token ?? '', messageId)],
];

const unauthenticated = (path: string) => path.startsWith('/interactions/') || path.startsWith('/webhooks/');

/** Answers one REST request. Unknown routes get a 404 the test can see in the recorded requests. */
export function answerRest(ctx: RestContext, req: RestRequest): RestAnswer {
  if (!unauthenticated(req.path) && req.auth !== `Bot ${ctx.token}`) return { status: 401, body: { code: 0, message: '401: Unauthorized' } };
  for (const [method, pattern, handler] of routes) {
    if (method !== '*' && method !== req.method) continue;
    const match = pattern.exec(req.path);
    if (match) return handler(ctx, req, match.slice(1));
  }
  return { status: 404, body: { code: 0, message: '404: Not Found' } };
}
