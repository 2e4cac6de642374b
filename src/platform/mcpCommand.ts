// `/mcp attach SERVER URI` and `/mcp prompt SERVER NAME [args]` run once for every platform: the core answers the
// line (src/mcp/chatCommands.ts) in the person's world, and the platform's place does what the answer says (shares
// the file in the thread, starts the prompt's turn there as if the person had written it, or tells them the line).
import { type Config, worldSettings } from '../config/config.ts';
import { runMcpChatCommand } from '../mcp/chatCommands.ts';
import type { Mcp } from '../mcp/fromConfig.ts';
import type { OutgoingFile } from './port.ts';

/** Where an `/mcp` line was written, and how the platform acts there. */
export interface McpCommandPlace {
  worldId: string;
  userId: string;
  /** A line for the person (Slack and Discord: in the thread; the terminal: printed). */
  reply(text: string): Promise<void>;
  /** Shares a file in the thread; absent where the platform cannot (the person is told). */
  upload?(file: OutgoingFile): Promise<void>;
  /** Starts a turn in the thread with these words, as the person's. */
  startTurn(text: string): Promise<void>;
}

/** Whether a chat line is an `/mcp` command (handed to the core rather than to the model). */
export const isMcpCommand = (text: string): boolean => /^\/mcp(\s|$)/i.test(text.trim());

export async function runMcpCommand(config: Config, mcp: Mcp | undefined, place: McpCommandPlace, text: string): Promise<void> {
  if (mcp === undefined) return place.reply('No MCP servers are configured here.');
  const { mcp: servers, network, egressAllow, credentials } = worldSettings(config, place.worldId);
  const outcome = await runMcpChatCommand(mcp.tools, { worldId: place.worldId, requesterId: place.userId, mcp: servers, network, egressAllow, ...(credentials ? { credentials } : {}) }, text);
  if (outcome.kind === 'reply') return place.reply(outcome.text);
  if (outcome.kind === 'turn') return place.startTurn(outcome.text);
  if (place.upload === undefined) return place.reply('Files cannot be shared here.');
  return place.upload({ name: outcome.name, bytes: outcome.bytes, title: outcome.note });
}
