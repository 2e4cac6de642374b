// A bot with issue 35's hostile stdio server (fixtures/round4Server.mjs) configured as `r4`, its calls unasked,
// and a helper that makes the model call one tool in a chat and returns what the tool result said.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../../src/config/config.ts';
import { resolveMcpServers } from '../../../src/config/mcpSettings.ts';
import { lastUserText, stepsBrain, textReply, toolUseReply } from '../../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from '../harness.ts';

export const SDK = realpathSync(join(import.meta.dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
export const ROUND4_SERVER = join(import.meta.dirname, '..', 'fixtures', 'round4Server.mjs');

export async function startRound4Bot(tweak: (config: Config) => void = () => {}): Promise<McpHarness> {
  return startMcpHarness({}, { mcpNoApproval: ['mcp__r4__*'] }, (config) => {
    config.mcp.timeoutMs = 20_000;
    config.mcp.servers = resolveMcpServers({ r4: { command: 'node', args: [ROUND4_SERVER, SDK] } }, {});
    tweak(config);
  });
}

/** The model calls `tool` once in `chat`; a message `hello` in any chat is answered `still here`. */
export async function callOne(bot: McpHarness, tool: string, input: object, chat: string): Promise<string> {
  const seen: string[] = [];
  bot.fake.setBrain((req) => {
    if (lastUserText(req) === 'hello') return textReply('still here');
    return stepsBrain([toolUseReply(tool, input, { text: 'Trying.' }), textReply('over')], seen)(req);
  });
  await bot.say('go', chat);
  return seen[0] ?? '';
}
