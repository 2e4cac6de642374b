// Which MCP servers a skill's instructions name: `mcp__<server>__<tool>`, the `Server:tool` form public skills
// use (`Notion:notion-search`, in backticks), or the setup steps they give for another client
// (`codex mcp add linear --url …`, `claude mcp add --transport http linear …`, `{"mcpServers": {"linear": …`):
// openai/skills' linear skill names its tools bare (`list_issues`) and says which server only there. Prose such
// as "Linear MCP" is not read: "Modern MCP" and "TypeScript MCP SDK" say it too. A skill needing a server no
// world offers is reported by `skills validate` and `doctor`; the catalog is unchanged.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { worldAllowsServer } from '../config/mcpSettings.ts';

const FULL_NAME = /\bmcp__([a-z0-9_-]{1,32})__[A-Za-z0-9_.-]+/g;
const SERVER_TOOL = /`([A-Z][A-Za-z0-9]{1,31}):([a-z][a-z0-9_-]*)`/g;
/**
 * `codex mcp add NAME`, `claude mcp add [--flag value…] NAME`: options (with their values) come before the name;
 * prose ("run claude mcp add to register it") names no server.
 */
const ADD_COMMAND = /\b(?:codex|claude)\s+mcp\s+add(?:-json)?((?:\s+--?[a-z][a-z-]*(?:[= ](?!-)(?:"[^"]*"|'[^']*'|[^\s`'"]+))?)*)\s+(?!(?:to|a|an|the|your|it|its|for|with|and|or|then|first|now|again|command|server|servers|it's)\b)([A-Za-z0-9][A-Za-z0-9_-]{0,31})(?![\w.:/-])/g;
const MCP_SERVERS_JSON = /"mcpServers"\s*:\s*\{\s*"([A-Za-z0-9_-]{1,32})"\s*:/g;

/** The servers named in a SKILL.md, lower-cased, sorted. */
export function serversNamed(text: string): string[] {
  const servers = new Set<string>();
  for (const match of text.matchAll(FULL_NAME)) servers.add(match[1]!);
  for (const match of text.matchAll(SERVER_TOOL)) servers.add(match[1]!.toLowerCase());
  for (const match of text.matchAll(ADD_COMMAND)) servers.add(match[2]!.toLowerCase());
  for (const match of text.matchAll(MCP_SERVERS_JSON)) servers.add(match[1]!.toLowerCase());
  return [...servers].sort();
}

/** Servers configured and offered by at least one world (or the defaults). */
export function offeredServers(config: Config): Set<string> {
  const lists = [config.defaults.mcp, ...Object.values(config.worlds).map((world) => world.mcp ?? [])];
  return new Set(config.mcp.servers.map((server) => server.name).filter((name) => lists.some((list) => worldAllowsServer(list, name))));
}

/** One sentence when the skill in `folder` names servers nobody is offered; undefined when it names none or all are. */
export async function missingServers(folder: string, offered: ReadonlySet<string>): Promise<string | undefined> {
  const text = await readFile(join(folder, 'SKILL.md'), 'utf8').catch(() => '');
  const missing = serversNamed(text).filter((server) => !offered.has(server));
  if (missing.length === 0) return undefined;
  return `its instructions call tools of the MCP server${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which no world offers (mcpServers and a world's mcp in SKILLBOT_CONFIG; docs/mcp.md)`;
}

/**
 * What load_skill adds to its directive for a skill that names MCP servers: how their tools are named here, that
 * sign-in and setup are not the person's chores (public skills carry another client's setup steps: `codex mcp
 * add`, restarts), and which named servers this world does not offer. Empty when the skill names none.
 */
export function mcpDirectiveLines(text: string, worldServers: readonly string[]): string[] {
  const named = serversNamed(text);
  if (named.length === 0) return [];
  const here = named.filter((server) => worldServers.includes(server));
  const missing = named.filter((server) => !worldServers.includes(server));
  const lines: string[] = [];
  if (here.length > 0) {
    const first = here[0]!;
    // Placeholders in capitals, not <tool>: the envelope escapes angle brackets, and the model would read &lt;.
    const titled = `${first[0]!.toUpperCase()}${first.slice(1)}`;
    lines.push(
      `These instructions use the MCP server${here.length > 1 ? 's' : ''} ${here.join(', ')}. Here a server's tools are mcp__SERVER__TOOL: a tool the instructions name \`TOOL\` or \`${titled}:TOOL\` is mcp__${first}__TOOL (among your tools, or through find_mcp_tools where that is offered; when only mcp__${first}__connect is, call it first). ` +
        'skillbot connects the server, sends the person a private link to sign in with their own account when a call needs it, and asks a person to approve each call: skip the instructions\' steps for adding, configuring or logging in to an MCP server (codex or claude commands, config files, restarts), which are for another program and here are the bot operator\'s.',
    );
  }
  if (missing.length > 0) {
    const lead = here.length > 0 ? 'The instructions also use' : 'These instructions use';
    lines.push(
      `${lead} the MCP server${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not offered here (MCP servers here: ${worldServers.length > 0 ? worldServers.join(', ') : 'none'}): ` +
        'those tools cannot be called. Tell the person so, and that the bot\'s operator can add a server (mcpServers and this channel\'s mcp in SKILLBOT_CONFIG); do not give them the instructions\' setup commands, which are for another program.',
    );
  }
  return lines;
}
