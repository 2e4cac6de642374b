// A loopback fake of the Slack Web API (reached through SLACK_API_URL) that records what the bot posts.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { seededRandom } from '../anthropic/faults.ts';
import { FakeSocketMode, type SocketModeLink } from './socketMode.ts';
import { FakeWorkspace, type EphemeralMessage, type MethodResult, type PostedMessage, type WorkspaceInfo } from './webApi.ts';

export interface FakeSlackOptions {
  botToken?: string;
  /** The app-level token Socket Mode connects with. */
  appToken?: string;
  teamId?: string;
  botUserId?: string;
  botId?: string;
}

/** A fault for the next call of one method: a 429 with Retry-After, an API error, or a bare HTTP status. */
export type SlackFault = { kind: 'ratelimited'; retryAfterS: number } | { kind: 'error'; error: string } | { kind: 'http'; status: number };

/** Random 429s on every Web API method, from a seeded generator so a failing load run replays. */
export interface RateLimitRateOptions {
  /** Probability in [0, 1] that a call is answered 429. */
  rate: number;
  /** Sent as Retry-After (default 1). */
  retryAfterS?: number;
  /** Seed of the generator (default 1). */
  seed?: number;
}

export interface RecordedCall {
  seq: number;
  method: string;
  params: Record<string, unknown>;
  at: number;
  status: number;
  ok: boolean;
  error?: string;
}

/** A body the bot sent to a response_url (a slash command's delayed answer). */
export interface ResponseUrlPost {
  id: string;
  body: Record<string, unknown>;
  at: number;
}

export interface FakeSlack {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** What SLACK_API_URL takes: `${url}/api`. */
  readonly apiUrl: string;
  readonly info: WorkspaceInfo & { botToken: string; appToken: string };
  /** Socket Mode: the bot's WebSocket, once it connected with the app token. */
  readonly socketMode: SocketModeLink;
  readonly calls: RecordedCall[];
  readonly messages: PostedMessage[];
  readonly ephemerals: EphemeralMessage[];
  readonly responses: ResponseUrlPost[];
  /** A fresh response_url pointing at this fake. */
  responseUrl(): string;
  /** The next calls of `method` fail with these faults, one each, in order. */
  failNext(method: string, ...faults: SlackFault[]): void;
  /** Random 429s (after any failNext fault); null turns them off. */
  rateLimitRate(options: RateLimitRateOptions | null): void;
  /** chat.postMessage into `channel` fails with `error` (e.g. not_in_channel). */
  refuseChannel(channel: string, error: string): void;
  /** Messages of a thread in posting order: its root (if the bot posted it) and the replies. */
  thread(channel: string, threadTs: string): PostedMessage[];
  /** Polls `check` until it returns a value that is not undefined or false. */
  waitFor<T>(check: () => T | undefined | false, options?: { timeoutMs?: number; what?: string }): Promise<T>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseParams(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) {
    const parsed: unknown = raw === '' ? {} : JSON.parse(raw);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const info = {
    teamId: options.teamId ?? 'T0FAKE',
    botUserId: options.botUserId ?? 'UBOT',
    botId: options.botId ?? 'BBOT',
    botToken: options.botToken ?? 'xoxb-fake-token',
    appToken: options.appToken ?? 'xapp-fake-token',
  };
  const socketMode = new FakeSocketMode();
  let url = '';
  const workspace = new FakeWorkspace(info);
  const calls: RecordedCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const faults = new Map<string, SlackFault[]>();
  let randomLimit: { rate: number; retryAfterS: number; next: () => number } | null = null;

  const nextFault = (method: string): SlackFault | undefined => {
    const queued = faults.get(method)?.shift();
    if (queued || !randomLimit) return queued;
    return randomLimit.next() < randomLimit.rate ? { kind: 'ratelimited', retryAfterS: randomLimit.retryAfterS } : undefined;
  };

  const answer = (method: string, params: Record<string, unknown>, token: string | undefined): { status: number; body: MethodResult; headers?: Record<string, string> } => {
    const fault = nextFault(method);
    if (fault?.kind === 'ratelimited') {
      return { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': String(fault.retryAfterS) } };
    }
    if (fault?.kind === 'http') return { status: fault.status, body: { ok: false, error: 'fake_http_fault' } };
    if (fault?.kind === 'error') return { status: 200, body: { ok: false, error: fault.error } };
    if (token === undefined) return { status: 200, body: { ok: false, error: 'not_authed' } };
    // Socket Mode connects with the app-level token; every other method wants the bot token.
    if (method === 'apps.connections.open') {
      return token === info.appToken
        ? { status: 200, body: { ok: true, url: `${url.replace(/^http/, 'ws')}/link` } }
        : { status: 200, body: { ok: false, error: 'invalid_auth' } };
    }
    if (token !== info.botToken) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
    return { status: 200, body: workspace.call(method, params) };
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const raw = await readBody(req);
      const contentType = req.headers['content-type'] ?? '';
      if (req.method === 'POST' && path.startsWith('/respond/')) {
        responses.push({ id: path.slice('/respond/'.length), body: parseParams(raw, contentType), at: Date.now() });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      const method = /^\/api\/([a-zA-Z.]+)$/.exec(path)?.[1];
      if (req.method !== 'POST' || method === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      let params: Record<string, unknown>;
      try {
        params = parseParams(raw, contentType);
      } catch {
        sendJson(res, 200, { ok: false, error: 'invalid_json' });
        return;
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const token = bearer ?? (typeof params.token === 'string' ? params.token : undefined);
      const { status, body, headers } = answer(method, params, token);
      calls.push({ seq: calls.length, method, params, at: Date.now(), status, ok: body.ok, ...(body.ok ? {} : { error: String(body.error) }) });
      sendJson(res, status, body, headers);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] === '/link') socketMode.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    apiUrl: `${url}/api`,
    info,
    socketMode,
    calls,
    messages: workspace.messages,
    ephemerals: workspace.ephemerals,
    responses,
    responseUrl: () => `${url}/respond/${randomBytes(6).toString('hex')}`,
    failNext(method, ...list) {
      faults.set(method, [...(faults.get(method) ?? []), ...list]);
    },
    rateLimitRate(options) {
      if (options && !(options.rate >= 0 && options.rate <= 1)) throw new RangeError('rate must be within [0, 1]');
      randomLimit = options ? { rate: options.rate, retryAfterS: options.retryAfterS ?? 1, next: seededRandom(options.seed ?? 1) } : null;
    },
    refuseChannel(channel, error) {
      workspace.refusedChannels.set(channel, error);
    },
    thread(channel, threadTs) {
      return workspace.messages.filter((message) => message.channel === channel && (message.threadTs === threadTs || message.ts === threadTs));
    },
    async waitFor(check, waitOptions = {}) {
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 15_000);
      for (;;) {
        const value = check();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error(`fake Slack: timed out waiting for ${waitOptions.what ?? 'a condition'}`);
        await delay(20);
      }
    },
    async close() {
      socketMode.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
