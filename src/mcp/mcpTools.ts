// What the agent asks of MCP for one turn: a tool set (src/tools/contract.ts) of the world's tools, their
// definitions byte-stable while the servers' lists stay the same, and the runner for the calls the model makes.
import { GrantedDefinitions } from './toolDefinition.ts';
import type { Credential } from '../config/credentialsSchema.ts';
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolResult, ToolSet } from '../tools/contract.ts';
import type { AuditLog, ApprovalRuntime, Grants } from '../approvals/index.ts';
import type { Logger } from '../ops/log.ts';
import { type McpServerConfig, type McpSettings, worldAllowsServer } from '../config/mcpSettings.ts';
import type { Connected, McpConnections, NotConnected } from './connections.ts';
import { type SignIns, signInText } from './signIn.ts';
import { confirmSignIn } from './signInConfirm.ts';
import type { McpTasks } from './taskRuntime.ts';
import { ArgumentChecker, callMcpTool, type CallTurn, type ServerLink } from './toolCall.ts';
import { buildWorldTools, CALL_MCP_TOOL, describeFound, FIND_MCP_TOOLS, searchTools, type WorldTools } from './toolCatalog.ts';

export interface McpToolsDeps {
  settings: McpSettings;
  budgetChars: number;
  connections: McpConnections;
  approvals: ApprovalRuntime;
  grants: Grants;
  audit: AuditLog;
  logger: Logger;
  /** Per-person sign-in (absent: servers that answer 401 are reported as refusing the bot). */
  signIns?: SignIns;
  /** The names of skillbot's own tools: a server's tool of one of them is refused. */
  ourToolNames: ReadonlySet<string>;
  /** Calls a server turns into tasks: recorded and polled (taskRuntime.ts). */
  tasks?: McpTasks;
}

/** Who reaches a server, and with what of their world (a turn, or a command outside one). */
export interface McpScope {
  worldId: string;
  requesterId: string;
  /** The world's `mcp` list. */
  mcp: readonly string[];
  /** The world's `network` list (a stdio server named there gets the egress proxy). */
  network: readonly string[];
  /** The world's `egressAllow`: private ranges or hosts its networked stdio servers may reach through the proxy. */
  egressAllow: readonly string[];
  /** The world's `credentials`: its stdio servers hold placeholders, their proxy sets the values. */
  credentials?: readonly Credential[];
}

/** The turn as MCP needs it. */
export interface McpTurn extends CallTurn, McpScope {
  /** Tells the requester something only they see (a sign-in link); absent where the platform cannot. */
  tellPrivately?(text: string): Promise<void>;
  /** Asks the requester in the chat to connect (Discord's Connect button); their click gets the kept link. */
  askToConnect?(server: string): Promise<void>;
}

/** The part of a platform port (src/platform/port.ts) that reaches one person privately. */
interface PrivateWays {
  tellPrivately?(chatId: string, userId: string, text: string): Promise<void>;
  askToConnect?(chatId: string, userId: string, server: string): Promise<void>;
}

/** How a turn reaches its requester privately, from the platform it runs for. */
export function privateReach(platform: PrivateWays, chatId: string, userId: string): Pick<McpTurn, 'tellPrivately' | 'askToConnect'> {
  const { tellPrivately, askToConnect } = platform;
  return {
    ...(tellPrivately === undefined ? {} : { tellPrivately: (text: string) => tellPrivately.call(platform, chatId, userId, text) }),
    ...(askToConnect === undefined ? {} : { askToConnect: (server: string) => askToConnect.call(platform, chatId, userId, server) }),
  };
}

/** The name of the one tool offered for a server the person must sign in to before its tools are known. */
const CONNECT_TOOL = 'connect';

function connectTools(server: string): Tool[] {
  return [
    {
      name: CONNECT_TOOL,
      description: `Connect the person's own ${server} account (they get a private sign-in link), so that ${server}'s tools can be used. Call it when they ask for something ${server} does.`,
      inputSchema: { type: 'object', properties: {} },
    },
  ];
}

const NONE: ToolSet = { definitions: () => [], owns: () => false, progress: () => 'Calling a tool…', run: async () => ({ content: 'No MCP tools here.', isError: true }) };

export class McpTools {
  private readonly arguments = new ArgumentChecker();
  private readonly definitions = new GrantedDefinitions();
  /** Each server's tools as last listed by anyone: offered to a person who has not signed in yet. */
  private readonly known = new Map<string, readonly Tool[]>();
  /** Per set of servers: the listings a tool set was built from, and the set (same lists: the same object, the same bytes). */
  private readonly cache = new Map<string, { lists: ReadonlyArray<readonly Tool[]>; tools: WorldTools }>();

  constructor(private readonly deps: McpToolsDeps) {}

  /** The servers a world may use, in name order. */
  serversFor(mcp: readonly string[]): McpServerConfig[] {
    return this.deps.settings.servers.filter((server) => worldAllowsServer(mcp, server.name));
  }

  /**
   * The world's server `name` as this person reaches it, for a request outside a tool call (a resource, a prompt):
   * a server the world may not use is refused as unknown, so its name tells nothing.
   */
  async reach(name: string, scope: McpScope): Promise<Connected | NotConnected> {
    const servers = this.serversFor(scope.mcp);
    const server = servers.find((each) => each.name === name);
    if (server === undefined) return { ok: false, why: `no MCP server "${name.slice(0, 100)}" is offered here (servers here: ${servers.map((each) => each.name).join(', ') || 'none'})` };
    const result: Connected | NotConnected = await this.connect(server, scope).catch((error: unknown) => ({ ok: false as const, why: `the MCP server ${name} could not be reached: ${(error as Error).message}` }));
    if (!result.ok && result.signIn !== undefined) return { ok: false, why: `the MCP server ${name} needs you to sign in first: ask for something it does, and you get a private link` };
    return result;
  }

  /** How long one request to a server may take (`MCP_TIMEOUT_MS`). */
  get timeoutMs(): number {
    return this.deps.settings.timeoutMs;
  }

  private connect(server: McpServerConfig, turn: McpScope): Promise<Connected | NotConnected> {
    const network = turn.network.includes('*') || turn.network.includes(server.name);
    return this.deps.connections.get(server, { worldId: turn.worldId, personId: turn.requesterId, network, egressAllow: turn.egressAllow, credentials: turn.credentials ?? [] });
  }

  /**
   * Connects the world's servers (warm ones answer at once) and builds the turn's tool set. Its definitions change
   * once in a turn, when the person connects a server nobody had (its tools come in).
   */
  async forTurn(turn: McpTurn): Promise<ToolSet> {
    const servers = this.serversFor(turn.mcp);
    if (servers.length === 0) return NONE;
    // A server's failure is its own line in the log, never the turn's: the others are offered.
    const reach = (server: McpServerConfig): Promise<Connected | NotConnected> =>
      this.connect(server, turn).catch((error: unknown) => ({ ok: false as const, why: `the MCP server ${server.name} could not be reached: ${(error as Error).message}` }));
    const connected = await Promise.all(servers.map(async (server) => ({ server, connection: await reach(server) })));
    const listings = connected.flatMap(({ server, connection }) => {
      if (connection.ok) {
        this.known.set(server.name, connection.tools());
        return [{ server: server.name, tools: connection.tools() }];
      }
      // Not signed in: the tools others saw, or one tool that signs the person in.
      if (connection.signIn !== undefined) return [{ server: server.name, tools: this.known.get(server.name) ?? connectTools(server.name) }];
      this.deps.logger.warn({ server: server.name, worldId: turn.worldId, why: connection.why }, 'MCP server left out of the turn');
      return [];
    });
    let tools = this.toolSet(turn.worldId, listings);
    const byServer = new Map(servers.map((server) => [server.name, server]));
    const find = (name: string) => tools.entries.get(name) ?? [...tools.entries.values()].find((entry) => entry.fullName === name);
    /** The person connected a server nobody had: its tools replace its connect tool for the rest of the turn. */
    const signedIn = (server: string, serverTools: readonly Tool[]) => {
      listings.splice(listings.findIndex((listing) => listing.server === server), 1, { server, tools: serverTools });
      tools = this.toolSet(turn.worldId, listings);
    };
    const call = (name: string, input: unknown): Promise<ToolResult> => {
      const entry = find(name);
      if (entry === undefined) return Promise.resolve({ content: `There is no MCP tool "${name}" here${tools.search ? `: use ${FIND_MCP_TOOLS} to find one` : ''}.`, isError: true });
      const server = byServer.get(entry.server);
      if (server === undefined) return Promise.resolve({ content: `The MCP server ${entry.server} is not offered here.`, isError: true });
      if (entry.tool === CONNECT_TOOL && this.known.get(server.name) === undefined) return this.signInOnly(server, turn, signedIn);
      return callMcpTool({ ...this.deps, timeoutMs: this.deps.settings.timeoutMs, arguments: this.arguments, definitions: this.definitions }, turn, entry, input, this.link(server, turn));
    };
    return {
      definitions: () => tools.definitions,
      owns: (name) => (tools.search ? name === FIND_MCP_TOOLS || name === CALL_MCP_TOOL : tools.entries.has(name)),
      progress: (name) => (name === FIND_MCP_TOOLS ? 'Searching the tools…' : 'Calling a tool…'),
      run: async (name, input) => {
        if (name === FIND_MCP_TOOLS) {
          const query = typeof (input as { query?: unknown } | null)?.query === 'string' ? (input as { query: string }).query : '';
          const found = searchTools(tools, query);
          return { content: found.length === 0 ? `No MCP tool matches "${query.slice(0, 200)}".` : found.map(describeFound).join('\n\n') };
        }
        if (name === CALL_MCP_TOOL) {
          const { name: tool, arguments: args } = (input ?? {}) as { name?: unknown; arguments?: unknown };
          if (typeof tool !== 'string') return { content: `${CALL_MCP_TOOL} needs {"name": "mcp__<server>__<tool>", "arguments": {...}}.`, isError: true };
          return call(tool, args ?? {});
        }
        return call(name, input);
      },
    };
  }

  /** The one tool of a server nobody has signed in to yet: the person signs in, and its tools come in at once. */
  private async signInOnly(server: McpServerConfig, turn: McpTurn, connected: (server: string, tools: readonly Tool[]) => void): Promise<ToolResult> {
    const link = this.link(server, turn);
    let connection = await link.connect();
    if (!connection.ok && connection.signIn !== undefined) connection = await link.signIn(connection.signIn.url);
    if (!connection.ok) return { content: `Not connected to ${server.name}: ${connection.why}.`, isError: true };
    this.known.set(server.name, connection.tools());
    connected(server.name, connection.tools());
    const names = connection.tools().map((tool) => `mcp__${server.name}__${tool.name}`);
    return { content: `Connected to ${server.name}. Its tools (${names.join(', ') || 'none'}) are offered now: go on with the person's request.` };
  }

  /** How one call reaches a server for the requester, signing them in when it asks. */
  private link(server: McpServerConfig, turn: McpTurn): ServerLink {
    const connect = async () => {
      const result = await this.connect(server, turn);
      if (!result.ok && result.signIn === undefined) turn.notice(`The MCP server ${server.name} could not be used: ${result.why}.`);
      return result;
    };
    return {
      connect,
      reset: () => this.deps.connections.reset(server, turn.requesterId),
      signIn: async (url) => {
        const signIns = this.deps.signIns;
        if (signIns === undefined || (turn.tellPrivately === undefined && turn.askToConnect === undefined)) {
          return { ok: false, why: `the MCP server ${server.name} needs the person to sign in, and this chat cannot send them the link privately` };
        }
        await signIns.forgetHeld(server.name, turn.requesterId);
        if (turn.askToConnect !== undefined) {
          await signIns.rememberLink(server.name, turn.requesterId, url);
          await turn.askToConnect(server.name);
        } else {
          await turn.tellPrivately!(signInText(server.name, url));
        }
        turn.progress(`Waiting for you to connect ${server.name}…`);
        const connected = await signIns.waitFor(server.name, turn.requesterId, turn.approvalTimeoutMs, turn.signal);
        if (!connected) return { ok: false, why: `the person did not connect their ${server.name} account in time; asking again sends a new link` };
        turn.progress(`Waiting for you to confirm the ${server.name} sign-in…`);
        if (!(await confirmSignIn(this.deps.approvals, signIns, server.name, turn))) {
          return { ok: false, why: `the ${server.name} sign-in was not confirmed in the chat by the person who asked, so no account was connected` };
        }
        await this.deps.connections.reset(server, turn.requesterId);
        return connect();
      },
    };
  }

  private toolSet(worldId: string, listings: Array<{ server: string; tools: readonly Tool[] }>): WorldTools {
    const lists = listings.map((listing) => listing.tools);
    // By the servers offered, not by world: worlds come and go with channels; the config bounds the combinations.
    const key = listings.map((listing) => listing.server).join('\0');
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.lists.length === lists.length && cached.lists.every((list, index) => list === lists[index])) return cached.tools;
    const tools = buildWorldTools(listings, this.deps.budgetChars, this.deps.ourToolNames);
    if (tools.hiddenRemoved > 0) this.deps.logger.warn({ worldId, servers: key.split('\0'), hiddenRemoved: tools.hiddenRemoved }, 'hidden characters (Unicode tags, zero-width, bidi controls) removed from MCP tool definitions');
    for (const refused of tools.refused) this.deps.logger.warn({ worldId, server: refused.server, tool: refused.tool.slice(0, 200), why: refused.why }, 'MCP tool refused');
    this.cache.set(key, { lists, tools });
    return tools;
  }
}
