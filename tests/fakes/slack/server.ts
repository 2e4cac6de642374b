// A loopback fake of the Slack Web API (reached through SLACK_API_URL) that records what the bot posts.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { seededRandom } from '../anthropic/faults.ts';
import { FakeSocketMode, type SocketModeLink } from './socketMode.ts';
import { type AssistantCall, type EphemeralMessage, FakeWorkspace, type OpenedModal, type MethodResult, type PersonProfile, type PostedMessage, type PublishedView, type SeededMessage, type SharedFile, type UploadedFile, type WorkspaceInfo } from './webApi.ts';

export interface FakeSlackOptions {
  botToken?: string;
  /** The app-level token Socket Mode connects with. */
  appToken?: string;
  teamId?: string;
  botUserId?: string;
  botId?: string;
  /** The Enterprise Grid org of the workspace (auth.test's `enterprise_id`); none by default. */
  enterpriseId?: string;
  /** chat.startStream fails with this error (e.g. `feature_not_enabled`): a workspace without AI streaming. */
  refuseStreaming?: string;
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
  /** Messages the bot deleted, as they last read. */
  readonly deleted: PostedMessage[];
  readonly ephemerals: EphemeralMessage[];
  /** Modals the bot opened with views.open, in order. */
  readonly modals: OpenedModal[];
  readonly responses: ResponseUrlPost[];
  /** assistant.threads.setStatus / setTitle / setSuggestedPrompts calls, in order. */
  readonly assistantCalls: AssistantCall[];
  /** Home tabs published with views.publish, in order. */
  readonly views: PublishedView[];
  /** chat.startStream fails with `error` from now on (undefined serves it again). */
  refuseStreaming(error: string | undefined): void;
  /**
   * Streams that get nothing for `ms` end by themselves, as Slack ends idle streams (minutes there): the next
   * append or stop fails with `message_not_in_streaming_state`. Undefined: streams never expire.
   */
  expireIdleStreams(ms: number | undefined): void;
  /** Files the bot uploaded into channels (files.getUploadURLExternal, the upload, files.completeUploadExternal). */
  readonly uploads: UploadedFile[];
  /** Downloads of shared files: which file, and whether the bot token came with the request. */
  readonly downloads: Array<{ fileId: string; authorised: boolean }>;
  /**
   * A file a person shares: returns the `files` entry of the message event. Its url_private needs the bot token
   * (without it Slack redirects to its login page); with `redirect`, it redirects to a CDN path first.
   */
  shareFile(file: { name: string; mimetype: string; bytes: Buffer | string; redirect?: boolean }): Record<string, unknown>;
  /** Something people (or another bot) wrote that the bot was not told of: conversations.replies/history return it. */
  seed(message: SeededMessage): void;
  /** The workspace's next message ts (for a person's message written now: it sorts after every earlier post). */
  nextTs(): string;
  /** A person users.info knows, by display name (with `profile`: a guest, a Slack Connect member, a bot user). */
  addPerson(userId: string, displayName: string, profile?: PersonProfile): void;
  /** A user group (`S…`) and its members, as usergroups.users.list answers. */
  setGroup(groupId: string, members: string[]): void;
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
  /** The bot's message at `ts` in `channel` (indexed: a long run looks up one of hundreds of thousands). */
  messageAt(channel: string, ts: string): PostedMessage | undefined;
  /** Polls `check` until it returns a value that is not undefined or false. */
  waitFor<T>(check: () => T | undefined | false, options?: { timeoutMs?: number; what?: string }): Promise<T>;
  close(): Promise<void>;
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An upload's bytes: the body itself, or the first part of a multipart form (what the SDK's helper sends). */
function uploadedBytes(body: Buffer, contentType: string): Buffer {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!contentType.startsWith('multipart/form-data') || !mark) return body;
  const start = body.indexOf('\r\n\r\n', body.indexOf(`--${mark}`));
  const end = body.indexOf(`\r\n--${mark}`, start);
  return start < 0 || end < 0 ? body : body.subarray(start + 4, end);
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
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
    ...(options.enterpriseId ? { enterpriseId: options.enterpriseId } : {}),
    botToken: options.botToken ?? 'xoxb-fake-token',
    appToken: options.appToken ?? 'xapp-fake-token',
  };
  const socketMode = new FakeSocketMode();
  let url = '';
  const workspace = new FakeWorkspace(info);
  workspace.streamingRefusal = options.refuseStreaming;
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

  const downloads: Array<{ fileId: string; authorised: boolean }> = [];
  /** GET of a shared file: Slack's url_private rules (token needed, else the login page), and the CDN hop. */
  const serveFile = (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    const privateMatch = /^\/files-pri\/[^/]+-(F[0-9A-Z]+)\//.exec(path);
    const cdnMatch = /^\/cdn\/(F[0-9A-Z]+)$/.exec(path);
    if (path === '/login') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>Sign in to Slack</body></html>');
      return true;
    }
    const id = privateMatch?.[1] ?? cdnMatch?.[1];
    const file = id ? workspace.sharedFiles.get(id) : undefined;
    if (!id || !file) return false;
    const authorised = req.headers.authorization === `Bearer ${info.botToken}`;
    downloads.push({ fileId: id, authorised });
    if (privateMatch && !authorised) {
      res.writeHead(302, { location: '/login' }).end();
      return true;
    }
    if (privateMatch && file.redirect) {
      res.writeHead(302, { location: `${url}/cdn/${id}` }).end();
      return true;
    }
    res.writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.bytes.length) }).end(file.bytes);
    return true;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (req.method === 'GET' && serveFile(req, res, path)) return;
      if (req.method === 'POST' && path.startsWith('/upload/')) {
        const pending = workspace.pendingUploads.get(path.slice('/upload/'.length));
        const bytes = await readBytes(req);
        if (!pending) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('no such upload\n');
          return;
        }
        pending.bytes = uploadedBytes(bytes, req.headers['content-type'] ?? '');
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.length}`);
        return;
      }
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
  workspace.baseUrl = url;

  return {
    url,
    apiUrl: `${url}/api`,
    info,
    socketMode,
    calls,
    messages: workspace.messages,
    deleted: workspace.deleted,
    ephemerals: workspace.ephemerals,
    modals: workspace.modals,
    responses,
    assistantCalls: workspace.assistantCalls,
    views: workspace.views,
    refuseStreaming(error) {
      workspace.streamingRefusal = error;
    },
    expireIdleStreams(ms) {
      workspace.streamIdleMs = ms;
    },
    uploads: workspace.uploads,
    downloads,
    seed(message) {
      workspace.seed(message);
    },
    nextTs() {
      return workspace.nextTs();
    },
    addPerson(userId, displayName, profile) {
      workspace.people.set(userId, displayName);
      if (profile) workspace.profiles.set(userId, profile);
    },
    setGroup(groupId, members) {
      workspace.groups.set(groupId, members);
    },
    shareFile(file) {
      const id = workspace.nextFileId();
      const bytes = Buffer.isBuffer(file.bytes) ? file.bytes : Buffer.from(file.bytes, 'utf8');
      const shared: SharedFile = { id, name: file.name, mimetype: file.mimetype, bytes, redirect: file.redirect ?? false };
      workspace.sharedFiles.set(id, shared);
      const urlPrivate = `${url}/files-pri/${info.teamId}-${id}/${encodeURIComponent(file.name)}`;
      return { id, name: file.name, title: file.name, mimetype: file.mimetype, filetype: file.name.split('.').pop() ?? '', size: bytes.length, url_private: urlPrivate, url_private_download: `${urlPrivate}?download=1` };
    },
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
    messageAt(channel, ts) {
      return workspace.messageAt(channel, ts);
    },
    thread(channel, threadTs) {
      return workspace.threadOf(channel, threadTs);
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
