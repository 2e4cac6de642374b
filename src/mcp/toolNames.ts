// What the model calls an MCP tool: `mcp__<server>__<tool>`, the tool's name kept as the server gives it. The API
// takes 1-64 of [a-zA-Z0-9_-]: a longer name (or one with other characters) is shortened, with a hash of the full
// name so two long names never meet. Cards and the audit always show the full name.
import { createHash } from 'node:crypto';

export const API_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const HASH_LENGTH = 8;

export const fullToolName = (server: string, tool: string): string => `mcp__${server}__${tool}`;

/**
 * What grants key a tool by: (server, tool). Written as the full name, which names one pair only because a server
 * name holds no `__` and ends in no `_` (config.ts refusedServerName); the one place a grant's key is made.
 */
export const grantSubject = (server: string, tool: string): string => fullToolName(server, tool);

/** The name in the API's `tools`: the full name when it fits, else its start, `_`, and a hash of all of it. */
export function apiToolName(server: string, tool: string): string {
  const full = fullToolName(server, tool);
  if (API_NAME.test(full)) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  const safe = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${safe.slice(0, MAX - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * Why a server's tool name is refused, or undefined when it is fine. `reserved`: skillbot's own tools (a model told
 * to call load_skill must get ours, never a server's tool of that name).
 */
export function refusedToolName(tool: string, reserved: ReadonlySet<string>): string | undefined {
  if (tool.length === 0 || tool.length > 200) return 'its name is empty or longer than 200 characters';
  if (reserved.has(tool)) return `its name "${tool}" is one of skillbot's own tools`;
  if (/[\p{Cc}\p{Cf}\s]/u.test(tool)) return 'its name holds spaces or invisible characters';
  return undefined;
}
