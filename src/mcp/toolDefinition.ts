// An MCP tool approved for what it is: a "yes for this thread" covers the tool's definition (name, title,
// description, input schema, annotations) by its hash, so a server that changes a granted tool is asked about
// again; and the new card says what changed, from the definition the person said yes to.
import { createHash } from 'node:crypto';
import { visible } from '../text/visible.ts';
import type { McpToolEntry } from './toolCatalog.ts';

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: McpToolEntry['annotations'];
}

export const definitionOf = (entry: McpToolEntry): ToolDefinition => ({
  name: entry.tool,
  ...(entry.title === undefined ? {} : { title: entry.title }),
  description: entry.description,
  inputSchema: entry.inputSchema,
  annotations: entry.annotations,
});

/** JSON with object keys sorted at every depth: the same definition always hashes alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Stands where a skill's content hash would: `mcp-tool:<sha256 of the definition>`. */
export const definitionHash = (definition: ToolDefinition): string => `mcp-tool:${createHash('sha256').update(canonical(definition)).digest('hex')}`;

const MAX_QUOTED = 600;
const quoted = (text: string): string => `"${visible(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text)}"`;

/** What differs between the definition a person approved and the one the server gives now, one line each. */
export function definitionChanges(before: ToolDefinition, now: ToolDefinition): string[] {
  const lines: string[] = [];
  if ((before.title ?? '') !== (now.title ?? '')) lines.push(`its title was ${quoted(before.title ?? '')} and is now ${quoted(now.title ?? '')}`);
  if (before.description !== now.description) lines.push(`its description was ${quoted(before.description)} and is now ${quoted(now.description)}`);
  if (canonical(before.inputSchema) !== canonical(now.inputSchema)) lines.push(`its input schema changed: it is now ${quoted(canonical(now.inputSchema))}`);
  if (canonical(before.annotations) !== canonical(now.annotations)) lines.push(`its hints changed from ${canonical(before.annotations)} to ${canonical(now.annotations)}`);
  return lines;
}

const MAX_REMEMBERED = 10_000;

/**
 * The definitions people said "yes for this thread" to, by (world, chat, tool, requester), in this process (the
 * grant itself is in the store, bound to the hash: after a restart a changed tool is still asked about, only
 * without the list of changes). Bounded: the oldest are forgotten first.
 */
export class GrantedDefinitions {
  private readonly remembered = new Map<string, ToolDefinition>();

  remember(key: string, definition: ToolDefinition): void {
    this.remembered.delete(key);
    this.remembered.set(key, definition);
    if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value ?? '');
  }

  /** What changed since the definition granted under `key`; undefined when none was, or nothing did. */
  changes(key: string, now: ToolDefinition): string[] | undefined {
    const before = this.remembered.get(key);
    if (before === undefined) return undefined;
    const lines = definitionChanges(before, now);
    return lines.length === 0 ? undefined : lines;
  }
}

export const definitionKey = (worldId: string, chatId: string, fullName: string, requesterId: string): string => JSON.stringify([worldId, chatId, fullName, requesterId]);
