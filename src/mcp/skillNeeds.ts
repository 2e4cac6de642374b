// Which MCP servers a skill's instructions name: `mcp__<server>__<tool>`, or the `Server:tool` form public skills
// use (`Notion:notion-search`, in backticks). A skill needing a server no world offers is reported by
// `skills validate` and `doctor`; the catalog is unchanged.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { worldAllowsServer } from './config.ts';

const FULL_NAME = /\bmcp__([a-z0-9_-]{1,32})__[A-Za-z0-9_.-]+/g;
const SERVER_TOOL = /`([A-Z][A-Za-z0-9]{1,31}):([a-z][a-z0-9_-]*)`/g;

/** The servers named in a SKILL.md, lower-cased, sorted. */
export function serversNamed(text: string): string[] {
  const servers = new Set<string>();
  for (const match of text.matchAll(FULL_NAME)) servers.add(match[1]!);
  for (const match of text.matchAll(SERVER_TOOL)) servers.add(match[1]!.toLowerCase());
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
