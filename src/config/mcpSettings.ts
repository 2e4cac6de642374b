// MCP servers as operators already write them: Claude Code's `.mcp.json` entries under `mcpServers` in
// SKILLBOT_CONFIG, `${VAR}` (and `${VAR:-default}`) read from the bot's environment once, at start.
import { z } from 'zod';
import { ConfigError, intVar, optional, urlVar } from './envVars.ts';

export const SERVER_NAME = /^[a-z0-9_-]{1,32}$/;

/**
 * Why a server name is refused, or undefined. `mcp__<server>__<tool>` must name one (server, tool) only: a server
 * called `gh__x` (tool `read`) would share `mcp__gh__x__read` with server `gh`'s tool `x__read`, and `gh_` (tool `x`)
 * would share `mcp__gh___x` with `gh`'s tool `_x`; so a name holds no `__` and does not end with `_`.
 */
export function refusedServerName(name: string): string | undefined {
  if (!SERVER_NAME.test(name)) return 'is not a server name (1-32 of a-z, 0-9, _ and -)';
  if (name.includes('__') || name.endsWith('_')) return 'is not a server name: it may not hold "__" or end with "_" (tools are named mcp__<server>__<tool>, and the server part must be unambiguous)';
  return undefined;
}

const stringMap = z.record(z.string(), z.string());
const stdioEntry = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    /** Memory for the server as a whole (its cgroup) and each of its processes, in MiB; default SCRIPT_MEMORY_MB's. */
    memoryMb: z.number().int().min(16).max(65_536).optional(),
  })
  .strict();
const remoteEntry = (type: 'http' | 'sse') =>
  z
    .object({
      type: z.literal(type),
      url: z.string().min(1),
      headers: stringMap.optional(),
      /** A client id registered with the server's authorization server, where it offers no dynamic registration. */
      oauth: z
        .object({
          clientId: z.string().min(1).optional(),
          clientSecret: z.string().optional(),
          scope: z.string().optional(),
          /** The one authorization server the bot talks to for this server (the server's metadata may not name another). */
          authorizationServer: z.string().optional(),
        })
        .strict()
        .optional(),
    })
    .strict();

export const mcpServersSchema = z.record(
  z.string(),
  z.union([stdioEntry, remoteEntry('http'), remoteEntry('sse')]),
);
export type McpServersInput = z.infer<typeof mcpServersSchema>;

export type McpServerConfig =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string>; memoryBytes?: number }
  | { name: string; type: 'http' | 'sse'; url: string; headers: Record<string, string>; oauth?: { clientId?: string; clientSecret?: string; scope?: string; authorizationServer?: string } };

export interface McpSettings {
  servers: McpServerConfig[];
  /** MCP_TIMEOUT_MS: one call's bound. */
  timeoutMs: number;
  /** PUBLIC_URL: the bot's outside address, for the OAuth redirect. */
  publicUrl: string;
  /** MCP_TASK_MAX_MS: a call the server turned into a task is cancelled this long after it started. */
  taskMaxMs: number;
  /** MCP_TASKS_PER_WORLD: tasks running at once in one world; past it, a new task is cancelled on its server and the model told why. */
  tasksPerWorld: number;
  /** MCP_SKILLS_DIR: where servers' skills are materialised, verified, one folder per manifest (never a skills root). */
  skillsDir: string;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` from the environment; an unset one without a default stops the start with one line naming it. */
function expand(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`mcpServers.${where} uses \${${name}}, which is not set in the bot's environment: set it, or remove the server.`);
  });
}

const expandMap = (map: Record<string, string> | undefined, env: NodeJS.ProcessEnv, where: string) =>
  Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, expand(value, env, `${where}.${key}`)]));

export function resolveMcpServers(input: McpServersInput | undefined, env: NodeJS.ProcessEnv): McpServerConfig[] {
  return Object.entries(input ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, entry]): McpServerConfig => {
      const refused = refusedServerName(name);
      if (refused !== undefined) throw new ConfigError(`mcpServers: "${name}" ${refused}.`);
      if ('command' in entry) {
        return {
          name,
          type: 'stdio',
          command: expand(entry.command, env, `${name}.command`),
          args: (entry.args ?? []).map((arg, index) => expand(arg, env, `${name}.args.${index}`)),
          env: expandMap(entry.env, env, `${name}.env`),
          ...(entry.memoryMb === undefined ? {} : { memoryBytes: entry.memoryMb * 1024 * 1024 }),
        };
      }
      const url = expand(entry.url, env, `${name}.url`);
      try {
        const parsed = new URL(url);
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
      } catch {
        throw new ConfigError(`mcpServers.${name}.url must be an http(s) URL (got "${url}").`);
      }
      const pinned = entry.oauth?.authorizationServer;
      if (pinned !== undefined && !isHttpsOrLoopback(pinned)) {
        throw new ConfigError(`mcpServers.${name}.oauth.authorizationServer must be an https URL (or http on loopback), got "${pinned}".`);
      }
      return { name, type: entry.type, url, headers: expandMap(entry.headers, env, `${name}.headers`), ...(entry.oauth === undefined ? {} : { oauth: entry.oauth }) };
    });
}

function isHttpsOrLoopback(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
  } catch {
    return false;
  }
}

/**
 * `worlds`: each world's (and the defaults') `mcp` list, by where it is written: a name that is not a configured
 * server is a typo that would offer nothing, so it stops the start.
 */
export function mcpSettings(input: McpServersInput | undefined, env: NodeJS.ProcessEnv, port: number, worlds: Array<[string, string[] | undefined]> = []): McpSettings {
  const servers = resolveMcpServers(input, env);
  for (const [where, names] of worlds) {
    const unknown = (names ?? []).find((name) => name !== '*' && !servers.some((server) => server.name === name));
    if (unknown !== undefined) {
      throw new ConfigError(`${where}.mcp names "${unknown}", which is not in mcpServers (servers: ${servers.map((server) => server.name).join(', ') || 'none'}).`);
    }
  }
  return {
    servers,
    timeoutMs: intVar(env, 'MCP_TIMEOUT_MS', 60_000, 100, 3_600_000),
    publicUrl: optional(env.PUBLIC_URL) === undefined ? `http://localhost:${port}` : (urlVar(env, 'PUBLIC_URL') ?? `http://localhost:${port}`),
    taskMaxMs: intVar(env, 'MCP_TASK_MAX_MS', 3_600_000, 1_000, 7 * 24 * 3_600_000),
    tasksPerWorld: intVar(env, 'MCP_TASKS_PER_WORLD', 10, 1, 1_000),
    skillsDir: optional(env.MCP_SKILLS_DIR) ?? './data/mcp-skills',
  };
}

/** Whether a world may use a server (`mcp: ['*']` all). */
export function worldAllowsServer(mcp: readonly string[], server: string): boolean {
  return mcp.includes('*') || mcp.includes(server);
}

/**
 * Whether `mcpNoApproval` lists the tool, as `mcp__<server>__<tool>` or `mcp__<server>__*`: each entry is read as
 * (server, tool), the server ending at the first `__` (server names hold none), and compared by both parts.
 */
export function skipsApproval(noApproval: readonly string[], server: string, tool: string): boolean {
  return noApproval.some((entry) => {
    const named = splitToolName(entry);
    return named !== undefined && named.server === server && (named.tool === '*' || named.tool === tool);
  });
}

/** `mcp__<server>__<tool>` as (server, tool), or undefined when it is not such a name. */
export function splitToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith('mcp__')) return undefined;
  const rest = name.slice('mcp__'.length);
  const end = rest.indexOf('__');
  if (end <= 0) return undefined;
  return { server: rest.slice(0, end), tool: rest.slice(end + 2) };
}

/** Package runners that download what they run each time they start (`npx -y pkg`, `uvx pkg`, …). */
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx']);

/**
 * Why a stdio server started by a package runner may not answer, and what to write instead; '' for any other.
 * In the sandbox the runner has an empty home of its own, so it downloads the package on every start, and without
 * the network it waits until MCP_TIMEOUT_MS without a word.
 */
export function runnerHint(server: McpServerConfig, networked: boolean): string {
  if (server.type !== 'stdio') return '';
  const runner = server.command.split('/').pop() ?? '';
  if (!PACKAGE_RUNNERS.has(runner)) return '';
  const instead = 'install the package where the bot runs and name its file as the command (e.g. /opt/mcp/node_modules/.bin/<its bin>), which needs no network (docs/mcp.md)';
  return networked
    ? `. ${runner} downloads the package through the egress proxy on every start: its errors and the proxy's refusals are in the bot's log; or ${instead}`
    : `. ${runner} downloads the package when it starts, and this server has no network: ${instead}, or list the server under the world's network`;
}
