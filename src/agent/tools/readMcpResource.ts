// read_mcp_resource: one resource of an MCP server the world may use. Text comes back to the model (bounded, hidden
// characters stripped, as tool results are); a binary resource is saved in the chat's workspace and the model gets
// its path, so a script can read it.
import type { Tool as ToolDefinition } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { MAX_RESOURCE_TEXT_BYTES, readResource } from '../../mcp/resources.ts';
import type { Tool, ToolResult } from '../../tools/contract.ts';
import { placeSharedFiles } from '../../workspace/sharedFiles.ts';
import type { ToolContext } from '../turnContext.ts';

export const READ_MCP_RESOURCE = 'read_mcp_resource';

/** Public contract: input `{server, uri}`. */
const definition: ToolDefinition = {
  name: READ_MCP_RESOURCE,
  description:
    "Read one resource of an MCP server offered here, by the server's name and the resource's URI (as the server or " +
    'a tool result names it). Text comes back; a binary resource is saved in /workspace and its path comes back.',
  input_schema: {
    type: 'object',
    properties: {
      server: { type: 'string', description: 'The MCP server (as in mcp__<server>__<tool>).' },
      uri: { type: 'string', description: 'The resource URI.' },
    },
    required: ['server', 'uri'],
  },
};

const readInput = z.object({ server: z.string().min(1).max(200), uri: z.string().min(1).max(2000) });

async function readForTurn(input: z.infer<typeof readInput>, { deps, turn }: ToolContext): Promise<ToolResult> {
  if (deps.mcp === undefined) return { content: 'No MCP servers are offered here.', isError: true };
  const { mcp, network, egressAllow, credentials } = turn.settings;
  const connection = await deps.mcp.reach(input.server, { worldId: turn.worldId, requesterId: turn.requesterId, mcp, network, egressAllow, credentials });
  if (!connection.ok) return { content: `Not read: ${connection.why}.`, isError: true };
  const read = await readResource(connection.client, input.server, input.uri, deps.mcp.timeoutMs);
  if (!read.ok) return { content: `Not read: ${read.why}.`, isError: true };
  if ('text' in read) {
    if (read.hiddenRemoved > 0) deps.logger.warn({ server: input.server, uri: input.uri.slice(0, 200), hiddenRemoved: read.hiddenRemoved }, 'hidden characters removed from an MCP resource');
    const cut = read.cutBytes > 0 ? `\n(cut: ${read.cutBytes} more bytes past the ${MAX_RESOURCE_TEXT_BYTES / 1024} KiB read)` : '';
    return { content: `Resource ${read.uri}${read.mimeType === undefined ? '' : ` (${read.mimeType})`}:\n${read.text}${cut}` };
  }
  const [placed] = await placeSharedFiles(await turn.openWorkspace(), [{ name: read.name, bytes: read.bytes }]);
  if (placed === undefined || 'notPlaced' in placed) return { content: `Resource ${read.uri} is binary and was not saved: ${placed?.notPlaced ?? 'nothing to save'}.`, isError: true };
  return { content: `Resource ${read.uri} is binary (${read.mimeType ?? 'no type given'}, ${read.bytes.byteLength} bytes): saved as /workspace/${placed.placedAs}.` };
}

/** Offered where the world may use an MCP server. */
export const readMcpResourceTool: Tool<ToolContext, z.infer<typeof readInput>> = {
  name: READ_MCP_RESOURCE,
  definition,
  input: readInput,
  invalid: () => ({ content: `${READ_MCP_RESOURCE} needs {"server": "<server>", "uri": "<resource URI>"}.`, isError: true }),
  progress: (input) => {
    const server = (input as { server?: unknown } | undefined)?.server;
    return typeof server === 'string' && server.length <= 100 ? `Reading a resource of ${server}…` : 'Reading a resource…';
  },
  offered: ({ turn }) => (turn.mcpServers?.length ?? 0) > 0,
  run: readForTurn,
};
