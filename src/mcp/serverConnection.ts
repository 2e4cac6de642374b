// One connection to one MCP server through the SDK's Client, as a world (stdio), everyone (static headers) or one
// person (their sign-in) uses it: opened on first use, kept warm, restarted once if it dies then left down a while,
// cut off when it passes a bound of byteBounds.ts, its tool list kept current (tools/list_changed).
import { Client, type OAuthClientProvider, type Tool, type Transport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { ByteMeter } from './byteBounds.ts';
import { type McpServerConfig, runnerHint } from '../config/mcpSettings.ts';
import type { Connected, ConnectionDeps, ConnectionScope, NotConnected } from './connectionTypes.ts';
import type { QuestionParams } from './questions/questions.ts';
import type { QuestionAsker } from './questions/questionTypes.ts';
import { isUnauthorized } from './mcpErrors.ts';
import { LinearSchemaValidator } from './schemaValidator.ts';
import { remoteTransport, stdioTransport } from './transports.ts';

const QUESTION_PARAMS = z.looseObject({ mode: z.enum(['form', 'url']).optional(), message: z.string(), requestedSchema: z.looseObject({}).optional(), url: z.string().optional() });

const CLIENT_INFO = { name: 'skillbot', version: '1.0.0' };
/** Tools kept of one server (pages read until then). */
const MAX_TOOLS = 2000;
const MAX_PAGES = 50;
/** A server that failed to start is tried again after this long, not on every tool call. */
const RETRY_AFTER_MS = 30_000;
/** A server that died after its one restart stays down this long. */
const DOWN_FOR_MS = 10 * 60_000;
/**
 * How long a stdio server may stay silent on the 2026-07-28 `server/discover` probe before it is taken for a server
 * of an earlier revision (some never answer a request before `initialize`); over HTTP silence is an outage instead.
 */
const STDIO_PROBE_MS = 5_000;

export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/** A remote server the operator signed in for everyone (static headers): one connection serves every call. */
export const isShared = (server: McpServerConfig): boolean => server.type !== 'stdio' && Object.keys(server.headers).length > 0;

type PersonProvider = OAuthClientProvider & { pendingUrl(): string | undefined };

export class ServerConnection {
  private live: Promise<Connected | NotConnected> | undefined;
  private tools: Tool[] = [];
  private deaths = 0;
  private downUntil = 0;
  private downWhy = '';
  private closing = false;
  /** The server's bytes, counted across its connections; a bound passed cuts it off (byteBounds.ts). */
  private meter = this.newMeter();
  /** One provider per connection: it keeps the link the SDK last sent the person to. */
  private provider: PersonProvider | undefined;
  /** The calls this connection serves now: a server's question goes to their requester (questions/serverQuestions.ts). */
  private readonly askers = new Set<QuestionAsker>();

  constructor(
    readonly server: McpServerConfig,
    private readonly scope: ConnectionScope,
    private readonly deps: ConnectionDeps,
  ) {}

  get(): Promise<Connected | NotConnected> {
    if (this.closing) return Promise.resolve({ ok: false, why: `the MCP server ${this.server.name} is shutting down` });
    if (Date.now() < this.downUntil) return Promise.resolve({ ok: false, why: this.downWhy });
    if (this.meter.why !== undefined) this.meter = this.newMeter();
    this.live ??= this.open().then((result) => {
      // A failure is remembered a little while (not retried on every call), then tried again.
      if (!result.ok) setTimeout(() => (this.live = undefined), result.signIn === undefined ? RETRY_AFTER_MS : 0).unref();
      return result;
    });
    return this.live;
  }

  private transport(): Transport | Promise<Transport | NotConnected> {
    const server = this.server;
    if (server.type === 'stdio') return stdioTransport(server, { launcher: this.deps.launcher, scope: this.scope, botPaths: this.deps.botPaths ?? [], meter: this.meter });
    return remoteTransport(server, this.meter, isShared(server) ? undefined : this.authProvider());
  }

  private newMeter(): ByteMeter {
    return new ByteMeter((why) => {
      this.downUntil = Date.now() + DOWN_FOR_MS;
      this.downWhy = `the MCP server ${this.server.name} was cut off and is left down for now: ${why}`;
      this.deps.logger.warn({ server: this.server.name, why }, 'MCP server passed a bound: cut off and left down');
      const live = this.live;
      this.live = undefined;
      void live?.then((result) => (result.ok ? result.client.close() : undefined)).catch(() => undefined);
    });
  }

  private newClient(): Client {
    const name = this.server.name;
    const client = new Client(CLIENT_INFO, {
      // Questions in both modes (form: a chat form; url: a link to the requester alone); a form's defaults are
      // filled in by the SDK where the person left a field out.
      capabilities: this.deps.onQuestion === undefined ? {} : { elicitation: { form: { applyDefaults: true }, url: {} } },
      // Output schemas are the server's: their patterns run in linear time (schemaValidator.ts).
      jsonSchemaValidator: new LinearSchemaValidator(),
      // 2026-07-28 where the server speaks it, the 2025 handshake otherwise (docs/mcp.md, "Protocol revisions").
      versionNegotiation: { mode: 'auto', ...(this.server.type === 'stdio' ? { probe: { timeoutMs: Math.min(STDIO_PROBE_MS, this.deps.timeoutMs) } } : {}) },
      listMaxPages: MAX_PAGES,
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error !== null || tools === null) return void this.deps.logger.warn({ server: name, err: error }, 'MCP server tool list refresh failed');
            this.tools = tools.slice(0, MAX_TOOLS);
            this.deps.logger.info({ server: name, tools: this.tools.length }, 'MCP server tool list changed');
            this.deps.onToolsChanged?.();
          },
        },
      },
    });
    const onQuestion = this.deps.onQuestion;
    // The params as the server sent them (the SDK's own parse drops what the spec's form schema does not name, such
    // as `writeOnly`, which marks a field secret here); the SDK still checks their shape and the mode first.
    if (onQuestion !== undefined) client.setRequestHandler('elicitation/create', { params: QUESTION_PARAMS }, (params) => onQuestion(name, params as QuestionParams, [...this.askers]));
    return client;
  }

  private async open(): Promise<Connected | NotConnected> {
    const name = this.server.name;
    const transport = await this.transport();
    if ('ok' in transport) return transport;
    const client = this.newClient();
    client.onerror = (error) => this.deps.logger.debug({ server: name, err: error.message }, 'MCP connection error');
    try {
      await client.connect(transport, { timeout: this.deps.timeoutMs });
      this.tools = await listAll(client, this.deps.timeoutMs);
    } catch (error) {
      await client.close().catch(() => undefined);
      return this.notConnected(error);
    }
    client.onclose = () => this.died();
    this.deps.logger.info({ server: name, tools: this.tools.length, protocol: client.getNegotiatedProtocolVersion() }, 'MCP server connected');
    const meter = this.meter;
    const asking = async <T>(asker: QuestionAsker, call: () => Promise<T>): Promise<T> => {
      this.askers.add(asker);
      try {
        return await call();
      } finally {
        this.askers.delete(asker);
      }
    };
    return { ok: true, client, tools: () => this.tools, cutOff: () => meter.why, asking };
  }

  private notConnected(error: unknown): NotConnected {
    const name = this.server.name;
    if (isUnauthorized(error)) {
      const url = this.server.type !== 'stdio' && !isShared(this.server) ? this.authProvider()?.pendingUrl() : undefined;
      if (url !== undefined) return { ok: false, why: `the MCP server ${name} needs you to sign in`, signIn: { url } };
      return { ok: false, why: `the MCP server ${name} refused the bot's credentials (401)` };
    }
    this.deps.logger.warn({ server: name, err: (error as Error).message }, 'MCP server could not be reached');
    return { ok: false, why: `the MCP server ${name} could not be reached: ${oneLine((error as Error).message)}${runnerHint(this.server, this.scope.network)}` };
  }

  private died(): void {
    if (this.closing || this.meter.why !== undefined) return;
    const name = this.server.name;
    this.deaths++;
    this.live = undefined;
    this.deps.logger.warn({ server: name, deaths: this.deaths }, this.deaths > 1 ? 'MCP server stopped again: left down' : 'MCP server stopped: restarted on its next use');
    if (this.deaths > 1) {
      this.downUntil = Date.now() + DOWN_FOR_MS;
      this.downWhy = `the MCP server ${name} stopped twice; it is left down for now (see the bot's log)`;
      this.deaths = 0;
    }
  }

  private authProvider(): PersonProvider | undefined {
    if (this.server.type === 'stdio') return undefined;
    this.provider ??= this.deps.authProvider?.(this.server, this.scope.personId);
    return this.provider;
  }

  async close(): Promise<void> {
    this.closing = true;
    const live = await this.live?.catch(() => undefined);
    if (live?.ok) await live.client.close().catch(() => undefined);
  }

  /** Forgets the connection (a person signed in or out): the next call connects afresh. */
  async reset(): Promise<void> {
    const live = await this.live?.catch(() => undefined);
    this.live = undefined;
    if (live?.ok) {
      this.closing = true;
      await live.client.close().catch(() => undefined);
      this.closing = false;
    }
  }
}

/** The server's tools, a page at a time, up to MAX_TOOLS. */
async function listAll(client: Client, timeoutMs: number): Promise<Tool[]> {
  if (client.getServerCapabilities()?.tools === undefined) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools.slice(0, MAX_TOOLS);
}
