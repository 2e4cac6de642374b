// The MCP tools a world offers the model: each server's tools under their API names, sorted, so the same
// listings give the same bytes every turn. Past `agent.mcpToolBudgetChars` none is listed: two fixed tools
// (find_mcp_tools, call_mcp_tool) find and call them, and the prompt stays small and byte-stable.
import { stripHiddenDeep } from '../text/hidden.ts';
import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { visible } from '../text/visible.ts';
import { apiToolName, fullToolName, refusedToolName } from './toolNames.ts';

/** One tool as skillbot knows it. */
export interface McpToolEntry {
  server: string;
  /** The tool's name as the server gives it. */
  tool: string;
  /** `mcp__<server>__<tool>`: what cards, grants and the audit name. */
  fullName: string;
  /** What the model calls (the full name, or its shortened form). */
  apiName: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server's hints, its own claim: shown on the card, never trusted to skip a question. */
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** `_meta["anthropic/requiresUserInteraction"]`: asked every time, no "yes for this thread". */
  requiresUserInteraction: boolean;
}

export interface ServerListing {
  server: string;
  tools: readonly McpTool[];
}

export interface WorldTools {
  /** By API name. */
  entries: ReadonlyMap<string, McpToolEntry>;
  /** The definitions for the request's `tools`: every tool, or the two search tools. */
  definitions: AnthropicTool[];
  search: boolean;
  /** Tools left out, and why (logged by the caller). */
  refused: Array<{ server: string; tool: string; why: string }>;
  /** Hidden characters removed from the tools' titles, descriptions and schemas (text/hidden.ts). */
  hiddenRemoved: number;
}

/** A definition (description and schema) longer than this is refused: it would crowd out everything else. */
export const MAX_DEFINITION_CHARS = 30_000;
const MAX_DESCRIPTION_CHARS = 1500;

export const FIND_MCP_TOOLS = 'find_mcp_tools';
export const CALL_MCP_TOOL = 'call_mcp_tool';

/** A tool's entry, its words (title, description, schema) without hidden characters; `removed` counts them. */
function entryOf(server: string, tool: McpTool): McpToolEntry & { removed: number } {
  const meta = (tool._meta ?? {}) as Record<string, unknown>;
  const hints = tool.annotations ?? {};
  const pick = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
  const annotations = Object.fromEntries(
    (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const).flatMap((key) => (pick(hints[key]) === undefined ? [] : [[key, pick(hints[key])]])),
  ) as McpToolEntry['annotations'];
  const raw = tool.title ?? (typeof hints.title === 'string' ? hints.title : undefined);
  const words = stripHiddenDeep({ title: raw, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> });
  const title = words.value.title;
  return {
    server,
    tool: tool.name,
    fullName: fullToolName(server, tool.name),
    apiName: apiToolName(server, tool.name),
    ...(title === undefined ? {} : { title }),
    description: words.value.description.slice(0, MAX_DESCRIPTION_CHARS),
    inputSchema: words.value.inputSchema,
    annotations,
    requiresUserInteraction: meta['anthropic/requiresUserInteraction'] === true,
    removed: words.removed,
  };
}

/** A tool as the API takes it; the description says whose tool it is, so the server's words read as its own. */
export function definitionOf(entry: McpToolEntry): AnthropicTool {
  const named = entry.fullName === entry.apiName ? '' : ` Full name: ${visible(entry.fullName)}.`;
  return {
    name: entry.apiName,
    description: `(MCP server ${entry.server}: its own description follows.)${named} ${entry.description}`.trim(),
    input_schema: { ...entry.inputSchema, type: 'object' } as AnthropicTool['input_schema'],
  };
}

export function searchDefinitions(servers: readonly string[]): AnthropicTool[] {
  return [
    {
      name: FIND_MCP_TOOLS,
      description:
        `Search the tools of the MCP servers connected here (${servers.join(', ')}): returns the best-matching tools with ` +
        `their names, descriptions and input schemas. Then call one with ${CALL_MCP_TOOL}.`,
      input_schema: { type: 'object', properties: { query: { type: 'string', description: 'A few words saying what the tool should do.' } }, required: ['query'] },
    },
    {
      name: CALL_MCP_TOOL,
      description: `Call an MCP tool that ${FIND_MCP_TOOLS} returned, by its name, with arguments matching its input schema. A person approves each call.`,
      input_schema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The tool name, mcp__<server>__<tool>.' }, arguments: { type: 'object', description: 'The tool\'s arguments.' } },
        required: ['name'],
      },
    },
  ];
}

/**
 * The world's tools from its servers' listings (already sorted by server name). `ourTools`: the names of the tools
 * skillbot gives the model itself (src/agent/tools/index.ts); a server's tool of one of them is refused, as is one
 * named like this folder's own two.
 */
export function buildWorldTools(listings: readonly ServerListing[], budgetChars: number, ourTools: ReadonlySet<string> = new Set()): WorldTools {
  const reserved = new Set([...ourTools, FIND_MCP_TOOLS, CALL_MCP_TOOL]);
  const entries = new Map<string, McpToolEntry>();
  const refused: WorldTools['refused'] = [];
  const byFull = new Set<string>();
  let hiddenRemoved = 0;
  for (const listing of listings) {
    const sorted = [...listing.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const tool of sorted) {
      const why = refusedToolName(tool.name, reserved);
      if (why !== undefined) {
        refused.push({ server: listing.server, tool: tool.name, why });
        continue;
      }
      const { removed, ...entry } = entryOf(listing.server, tool);
      hiddenRemoved += removed;
      if (entries.has(entry.apiName) || byFull.has(entry.fullName)) {
        refused.push({ server: listing.server, tool: tool.name, why: `its name ${entry.apiName} is taken by another tool` });
        continue;
      }
      if (JSON.stringify(definitionOf(entry)).length > MAX_DEFINITION_CHARS) {
        refused.push({ server: listing.server, tool: tool.name, why: `its definition is longer than ${MAX_DEFINITION_CHARS} characters` });
        continue;
      }
      entries.set(entry.apiName, entry);
      byFull.add(entry.fullName);
    }
  }
  const all = [...entries.values()].map(definitionOf).sort((a, b) => (a.name < b.name ? -1 : 1));
  const size = all.reduce((total, tool) => total + JSON.stringify(tool).length, 0);
  const servers = listings.map((listing) => listing.server);
  const search = size > budgetChars;
  return { entries, definitions: search ? searchDefinitions(servers) : all, search, refused, hiddenRemoved };
}

const wordsOf = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');

/** find_mcp_tools: the best matches by whole words of the name, title and description, best first. */
export function searchTools(tools: WorldTools, query: string, limit = 8): McpToolEntry[] {
  const words = [...new Set(wordsOf(query))];
  const scored = [...tools.entries.values()].map((entry) => {
    const name = new Set(wordsOf(`${entry.server} ${entry.tool} ${entry.title ?? ''}`));
    const text = new Set(wordsOf(entry.description));
    const score = words.reduce((total, word) => total + (name.has(word) ? 3 : 0) + (text.has(word) ? 1 : 0), 0);
    return { entry, score };
  });
  return scored
    .filter((item) => item.score > 0)
    .sort((a, b) => b.score - a.score || (a.entry.apiName < b.entry.apiName ? -1 : 1))
    .slice(0, limit)
    .map((item) => item.entry);
}

/** What find_mcp_tools answers for one tool. */
export function describeFound(entry: McpToolEntry): string {
  return [`name: ${entry.apiName}`, entry.apiName === entry.fullName ? '' : `full name: ${entry.fullName}`, `server: ${entry.server}`, entry.title ? `title: ${entry.title}` : '', `description: ${entry.description}`, `input schema: ${JSON.stringify(entry.inputSchema)}`]
    .filter(Boolean)
    .join('\n');
}
