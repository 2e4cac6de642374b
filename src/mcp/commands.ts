// `skillbot mcp list [--json]`, `skillbot mcp disconnect SERVER [--user ID]`, and the doctor's line per server:
// each configured server is reached as the bot would (a stdio server in the sandbox), and its state told.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import { executorFromConfig } from '../exec/fromConfig.ts';
import type { Check } from '../ops/check.ts';
import type { CommandOutput } from '../ops/commandOutput.ts';
import { silentLogger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { McpConnections } from './connections.ts';
import { listServerSkills } from './serverSkills.ts';
import { SignIns } from './signIn.ts';
import { TokenVault } from './tokenVault.ts';

export interface ServerState {
  name: string;
  type: string;
  state: 'connected' | 'needs sign-in' | 'failed';
  why?: string;
  tools: string[];
  /** The skills it serves (the skills extension), as `<server>:<path>` with their frontmatter names. */
  skills?: Array<{ id: string; name: string }>;
}

/**
 * A stdio server is probed with the network where the defaults or any world list it under `network` (with that
 * world's egressAllow), as that world would run it: a server that needs the network is not reported failed for
 * lacking it.
 */
function probeNetwork(config: Config, name: string): { network: boolean; egressAllow: string[] } {
  const lists = [config.defaults, ...Object.values(config.worlds)].find((world) => (world.network ?? []).some((entry) => entry === '*' || entry === name));
  return lists === undefined ? { network: false, egressAllow: [] } : { network: true, egressAllow: lists.egressAllow ?? config.defaults.egressAllow };
}

/** Every configured server, reached once (stdio in the sandbox, remote as nobody signed in), then closed. */
export async function probeServers(config: Config, store: Store, stateKey: Buffer): Promise<ServerState[]> {
  const logger = silentLogger();
  const executor = executorFromConfig(config, logger);
  const signIns = new SignIns(config.mcp.servers, new TokenVault(store, stateKey), config.mcp.publicUrl, logger);
  const connections = new McpConnections({ launcher: { start: (spec) => executor.startService(spec) }, logger, timeoutMs: Math.min(config.mcp.timeoutMs, 30_000), authProvider: (server, person) => signIns.provider(server, person) });
  try {
    return await Promise.all(
      config.mcp.servers.map(async (server): Promise<ServerState> => {
        const result = await connections.get(server, { worldId: 'skillbot:cli', personId: 'skillbot:cli', ...probeNetwork(config, server.name) });
        if (result.ok) {
          // A listing that fails is no failure of the server's tools: it lists no skills.
          const listing = await listServerSkills(result.client, server.name, Math.min(config.mcp.timeoutMs, 30_000)).catch(() => ({ skills: [] }));
          const skills = listing.skills.map((skill) => ({ id: skill.id, name: skill.name }));
          return { name: server.name, type: server.type, state: 'connected', tools: result.tools().map((tool) => tool.name), ...(skills.length > 0 ? { skills } : {}) };
        }
        if (result.signIn !== undefined) return { name: server.name, type: server.type, state: 'needs sign-in', why: 'each person signs in with their own account when a call needs it', tools: [] };
        return { name: server.name, type: server.type, state: 'failed', why: result.why, tools: [] };
      }),
    );
  } finally {
    await connections.close();
    executor.close();
  }
}

/**
 * The doctor's line per server. `localIds`: the local skills' ids; a server skill whose path or name is one of them
 * is left out of every catalog (a local skill wins: src/mcp/serverSkillCatalog.ts), which is a warning worth reading.
 */
export function serverChecks(states: readonly ServerState[], localIds: ReadonlySet<string> = new Set()): Check[] {
  return states.map((server): Check => {
    const name = `mcp ${server.name}`;
    if (server.state === 'connected') {
      const skills = server.skills ?? [];
      const text = `${server.type}, connected, ${server.tools.length} tool(s)${skills.length > 0 ? `, ${skills.length} skill(s)` : ''}`;
      const lost = skills.filter((skill) => localIds.has(skill.id.slice(server.name.length + 1)) || localIds.has(skill.name));
      if (lost.length === 0) return { verdict: 'ok', name, text };
      return { verdict: 'warn', name, text: `${text}; left out because a local skill of the same name wins: ${lost.map((skill) => skill.id).join(', ')}` };
    }
    if (server.state === 'needs sign-in') return { verdict: 'ok', name, text: `${server.type}, answers 401: ${server.why}` };
    return { verdict: 'FAIL', name, text: server.why ?? 'failed' };
  });
}

export async function runMcpCommand(args: string[], deps: { config: Config; store: Store; stateKey: Buffer; output: CommandOutput }): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, strict: true });
    const states = await probeServers(deps.config, deps.store, deps.stateKey);
    if (values.json === true) {
      deps.output.out(JSON.stringify({ servers: states }));
    } else if (states.length === 0) {
      deps.output.out('No MCP servers are configured (mcpServers in SKILLBOT_CONFIG).');
    } else {
      for (const server of states) {
        deps.output.out(`${server.name}  ${server.type}  ${server.state}${server.why === undefined ? '' : `: ${server.why}`}`);
        if (server.tools.length > 0) deps.output.out(`  tools: ${server.tools.join(', ')}`);
        if (server.skills !== undefined) deps.output.out(`  skills: ${server.skills.map((skill) => skill.id).join(', ')}`);
      }
    }
    return states.some((server) => server.state === 'failed') ? 1 : 0;
  }
  if (sub === 'disconnect') {
    const { values, positionals } = parseArgs({ args: rest, options: { user: { type: 'string' } }, allowPositionals: true, strict: true });
    const [name] = positionals;
    const server = deps.config.mcp.servers.find((entry) => entry.name === name);
    if (name === undefined || positionals.length > 1) {
      deps.output.err('usage: skillbot mcp disconnect SERVER [--user ID]');
      return 2;
    }
    if (server === undefined) {
      deps.output.err(`skillbot: no MCP server "${name}" is configured (servers: ${deps.config.mcp.servers.map((entry) => entry.name).join(', ') || 'none'}).`);
      return 2;
    }
    const vault = new TokenVault(deps.store, deps.stateKey);
    const people = values.user === undefined ? await vault.people(server.name) : [values.user];
    let removed = 0;
    for (const person of people) if (await vault.forget(server.name, person)) removed++;
    deps.output.out(
      values.user === undefined
        ? `Disconnected ${removed} person(s) from ${server.name}; each signs in again when a call needs it.`
        : removed > 0
          ? `Disconnected ${values.user} from ${server.name}.`
          : `${values.user} was not connected to ${server.name}.`,
    );
    return 0;
  }
  if (sub === 'tasks') return (await import('./taskCommand.ts')).runTasksCommand(rest, deps);
  deps.output.err('usage: skillbot mcp list [--json] | skillbot mcp disconnect SERVER [--user ID] | skillbot mcp tasks [--json]');
  return 2;
}
