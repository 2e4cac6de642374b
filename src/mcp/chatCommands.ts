// `/mcp attach SERVER URI` and `/mcp prompt SERVER NAME [args]` as a person writes them in a chat, on any platform:
// what the core answers, for the platform to do (a file to share in the thread, a turn to start with the prompt's
// words, or a line for the person). Nothing here posts: the platform's command runner does that once for all.
import type { McpScope, McpTools } from './mcpTools.ts';
import { promptArguments, readResource, runPrompt } from './resources.ts';

export const MCP_CHAT_USAGE = '`/mcp attach SERVER URI` shares a resource as a file; `/mcp prompt SERVER NAME [NAME=VALUE …]` runs a prompt';

export type McpChatOutcome =
  /** Share this file in the thread. */
  | { kind: 'file'; name: string; bytes: Uint8Array; mimeType?: string; note: string }
  /** Start a turn in the thread with these words, as if the person had written them. */
  | { kind: 'turn'; text: string }
  /** Tell the person this (a mistake, a refusal, the usage). */
  | { kind: 'reply'; text: string };

/** Runs one `/mcp …` line for the person `scope` names, in their world. */
export async function runMcpChatCommand(mcp: McpTools, scope: McpScope, text: string): Promise<McpChatOutcome> {
  const match = /^\/mcp\s+(attach|prompt)\s+(\S+)\s+(\S+)\s*([\s\S]*)$/i.exec(text.trim());
  if (match === null) return { kind: 'reply', text: `Usage: ${MCP_CHAT_USAGE}.` };
  const [, verb, server, target, rest] = match as unknown as [string, string, string, string, string];
  if (verb.toLowerCase() === 'attach' && rest.trim() !== '') return { kind: 'reply', text: `Usage: ${MCP_CHAT_USAGE} (attach takes one URI).` };
  const connection = await mcp.reach(server, scope);
  if (!connection.ok) return { kind: 'reply', text: `Not done: ${connection.why}.` };
  if (verb.toLowerCase() === 'attach') {
    const read = await readResource(connection.client, server, target, mcp.timeoutMs);
    if (!read.ok) return { kind: 'reply', text: `Not attached: ${read.why}.` };
    const bytes = 'text' in read ? Buffer.from(read.text, 'utf8') : read.bytes;
    const cut = 'text' in read && read.cutBytes > 0 ? ` (cut: ${read.cutBytes} bytes past the first 64 KiB)` : '';
    return { kind: 'file', name: read.name, bytes, ...(read.mimeType === undefined ? {} : { mimeType: read.mimeType }), note: `${target} from ${server}${cut}` };
  }
  const args = promptArguments(rest);
  if (!args.ok) return { kind: 'reply', text: `Not run: ${args.why}.` };
  const prompt = await runPrompt(connection.client, server, target, args.args, mcp.timeoutMs);
  return prompt.ok ? { kind: 'turn', text: prompt.text } : { kind: 'reply', text: `Not run: ${prompt.why}.` };
}
