// Connections to MCP servers through the SDK's Client: a stdio server runs once per world in the sandbox, kept
// warm and restarted once if it dies; an http/sse server with static headers is one shared connection, one
// without them one per person (their own sign-in). Each keeps its tool list current (tools/list_changed).
import type { Credential } from '../config/credentialsSchema.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { foldersToSee, type ServiceLauncher } from '../exec/longRunning.ts';
import type { Logger } from '../ops/log.ts';
import { type McpServerConfig, runnerHint } from '../config/mcpSettings.ts';
import { SandboxTransport } from './sandboxTransport.ts';
import { LinearSchemaValidator } from './schemaValidator.ts';
import { boundedFetch } from './boundedFetch.ts';
import { serverFetch } from './serverFetch.ts';
import { ByteMeter } from './byteBounds.ts';

export const CLIENT_INFO = { name: 'skillbot', version: '1.0.0' };
/** Tools kept of one server (pages read until then). */
const MAX_TOOLS = 2000;
const MAX_PAGES = 50;
/** A server that failed to start is tried again after this long, not on every tool call. */
const RETRY_AFTER_MS = 30_000;
/** A server that died after its one restart stays down this long. */
const DOWN_FOR_MS = 10 * 60_000;

export type Connected = {
  ok: true;
  client: Client;
  /** The server's tools now (tools/list_changed replaces them). */
  tools: () => readonly Tool[];
  /** Why the server was cut off (a bound of byteBounds.ts passed), once it was. */
  cutOff: () => string | undefined;
};
export type NotConnected = { ok: false; why: string; signIn?: { url: string } };

export interface ConnectionScope {
  worldId: string;
  personId: string;
  /** The world lets this stdio server reach the network (through the egress proxy). */
  network: boolean;
  /** The world's `egressAllow`, for a networked server's proxy. */
  egressAllow?: readonly string[];
  /** The world's `credentials`: a stdio server holds their placeholders, its proxy sets their values. */
  credentials?: readonly Credential[];
}

export interface ConnectionDeps {
  launcher: ServiceLauncher;
  logger: Logger;
  timeoutMs: number;
  /** Per-person OAuth for http/sse servers without static headers (absent: no sign-in). */
  authProvider?: (server: McpServerConfig & { type: 'http' | 'sse' }, personId: string) => OAuthClientProvider & { pendingUrl(): string | undefined };
  /** Called when a server's tool list changed, so cached tool sets are rebuilt. */
  onToolsChanged?: () => void;
  /** The bot's own folders (its working folder, store, workspaces, config): a stdio server never sees them. */
  botPaths?: readonly string[];
  /** A person's (or a world's) connection unused this long is closed (default 15 minutes). */
  idleMs?: number;
  now?: () => number;
}

const IDLE_MS = 15 * 60_000;
/** How often, at most, a get() looks for idle connections. */
const SWEEP_EVERY_MS = 60_000;

/** The first folder to mount that is, or holds, one of the bot's own folders. */
export function exposesBot(folders: readonly string[], botPaths: readonly string[]): { folder: string; holds: string } | undefined {
  for (const folder of folders) {
    const holds = botPaths.find((own) => own === folder || own.startsWith(`${folder}/`));
    if (holds !== undefined) return { folder, holds };
  }
  return undefined;
}

/** A remote server the operator signed in for everyone (static headers): one connection serves every call. */
const isShared = (server: McpServerConfig): boolean => server.type !== 'stdio' && Object.keys(server.headers).length > 0;

/** Which connection serves a call: a stdio server per world, a shared remote server once, a signed-in one per person. */
export function connectionKey(server: McpServerConfig, scope: Pick<ConnectionScope, 'worldId' | 'personId'>): string {
  if (server.type === 'stdio') return `${server.name}\0world\0${scope.worldId}`;
  if (isShared(server)) return `${server.name}\0shared`;
  return `${server.name}\0person\0${scope.personId}`;
}

class ServerConnection {
  private live: Promise<Connected | NotConnected> | undefined;
  private tools: Tool[] = [];
  private deaths = 0;
  private downUntil = 0;
  private downWhy = '';
  private closing = false;
  /** The server's bytes, counted across its connections; a bound passed cuts it off (byteBounds.ts). */
  private meter = this.newMeter();

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

  private transport(): Transport | NotConnected | Promise<Transport | NotConnected> {
    const server = this.server;
    if (server.type === 'stdio') return this.startStdio(server);
    const url = new URL(server.url);
    const requestInit = { headers: server.headers };
    const authProvider = Object.keys(server.headers).length === 0 ? this.authProvider() : undefined;
    const options = { requestInit, fetch: boundedFetch(serverFetch(server.url, server.oauth?.authorizationServer), this.meter), ...(authProvider === undefined ? {} : { authProvider }) };
    return server.type === 'http' ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
  }

  private async startStdio(server: McpServerConfig & { type: 'stdio' }): Promise<Transport | NotConnected> {
    const readOnly = foldersToSee(server.command, server.args);
    const exposed = exposesBot(readOnly, this.deps.botPaths ?? []);
    if (exposed !== undefined) {
      return { ok: false, why: `the MCP server ${server.name} is not started: its command line names a file in ${exposed.folder}, which holds the bot's own ${exposed.holds}, and a server never sees the bot's files (move the server's files elsewhere)` };
    }
    const started = await this.deps.launcher.start({
      name: `mcp ${server.name} for ${this.scope.worldId}`,
      command: server.command,
      args: server.args,
      env: server.env,
      readOnly,
      network: this.scope.network,
      egressAllow: [...(this.scope.egressAllow ?? [])],
      credentials: [...(this.scope.credentials ?? [])],
      owner: `mcp:${server.name}:${this.scope.worldId}`,
      ...(server.memoryBytes === undefined ? {} : { memoryBytes: server.memoryBytes }),
    });
    if ('refused' in started) return { ok: false, why: `the MCP server ${server.name} could not be started in the sandbox: ${started.refused}` };
    return new SandboxTransport(started, `the MCP server ${server.name}`, this.meter);
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

  private async open(): Promise<Connected | NotConnected> {
    const name = this.server.name;
    const transport = await this.transport();
    if ('ok' in transport) return transport;
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      // Output schemas are the server's: their patterns run in linear time (schemaValidator.ts).
      jsonSchemaValidator: new LinearSchemaValidator(),
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
    client.onerror = (error) => this.deps.logger.debug({ server: name, err: error.message }, 'MCP connection error');
    try {
      await client.connect(transport, { timeout: this.deps.timeoutMs });
      this.tools = await listAll(client, this.deps.timeoutMs);
    } catch (error) {
      await client.close().catch(() => undefined);
      if (error instanceof UnauthorizedError || /unauthorized|401/i.test((error as Error).message)) {
        const url = Object.keys(this.server.type === 'stdio' ? {} : this.server.headers).length === 0 ? this.signInUrl() : undefined;
        if (url !== undefined) return { ok: false, why: `the MCP server ${name} needs you to sign in`, signIn: { url } };
        return { ok: false, why: `the MCP server ${name} refused the bot's credentials (401)` };
      }
      this.deps.logger.warn({ server: name, err: (error as Error).message }, 'MCP server could not be reached');
      return { ok: false, why: `the MCP server ${name} could not be reached: ${oneLine((error as Error).message)}${runnerHint(this.server, this.scope.network)}` };
    }
    client.onclose = () => {
      if (this.closing || this.meter.why !== undefined) return;
      this.deaths++;
      this.live = undefined;
      this.deps.logger.warn({ server: name, deaths: this.deaths }, this.deaths > 1 ? 'MCP server stopped again: left down' : 'MCP server stopped: restarted on its next use');
      if (this.deaths > 1) {
        this.downUntil = Date.now() + DOWN_FOR_MS;
        this.downWhy = `the MCP server ${name} stopped twice; it is left down for now (see the bot's log)`;
        this.deaths = 0;
      }
    };
    this.deps.logger.info({ server: name, tools: this.tools.length }, 'MCP server connected');
    const meter = this.meter;
    return { ok: true, client, tools: () => this.tools, cutOff: () => meter.why };
  }

  private provider: ReturnType<NonNullable<ConnectionDeps['authProvider']>> | undefined;

  /** One provider per connection: it keeps the link the SDK last sent the person to. */
  private authProvider() {
    if (this.server.type === 'stdio') return undefined;
    this.provider ??= this.deps.authProvider?.(this.server, this.scope.personId);
    return this.provider;
  }

  private signInUrl(): string | undefined {
    return this.authProvider()?.pendingUrl();
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

export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/**
 * Connections by who they serve: one per shared remote server (bounded by the config), and one per world (stdio)
 * or per person (signed-in remote servers), which come and go with the people and channels that use them: those
 * are closed after `idleMs` unused, and the next call connects afresh.
 */
export class McpConnections {
  private readonly connections = new Map<string, { connection: ServerConnection; usedAt: number }>();
  private sweptAt: number;
  private readonly now: () => number;

  constructor(private readonly deps: ConnectionDeps) {
    this.now = deps.now ?? Date.now;
    this.sweptAt = this.now();
  }

  /** Connections held now (open, opening or failed and remembered). */
  get held(): number {
    return this.connections.size;
  }

  get(server: McpServerConfig, scope: ConnectionScope): Promise<Connected | NotConnected> {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) this.closeIdle(now);
    const key = connectionKey(server, scope);
    let entry = this.connections.get(key);
    if (entry === undefined) {
      entry = { connection: new ServerConnection(server, scope, this.deps), usedAt: now };
      this.connections.set(key, entry);
    }
    entry.usedAt = now;
    return entry.connection.get();
  }

  /** Drops a person's connection to a server (signed in anew, or disconnected). */
  async reset(server: McpServerConfig, personId: string): Promise<void> {
    const key = connectionKey(server, { worldId: '', personId });
    await this.connections.get(key)?.connection.reset();
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((entry) => entry.connection.close()));
  }

  private closeIdle(now: number): void {
    this.sweptAt = now;
    const idleMs = this.deps.idleMs ?? IDLE_MS;
    for (const [key, entry] of this.connections) {
      if (isShared(entry.connection.server) || now - entry.usedAt < idleMs) continue;
      this.connections.delete(key);
      void entry.connection.close();
    }
  }
}
