// A stdio MCP server of a world with credentials (issue 34, point 3): it holds the placeholder, never the value,
// and, networked, the installation CA is mounted and trusted as in a skill run; no model request holds the value.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const SDK = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = join(import.meta.dirname, 'fixtures', 'changingServer.mjs');
const SECRET = 'mcp-secret-value-4711';

let bot: McpHarness;
beforeAll(async () => {
  bot = await startMcpHarness({}, { mcpNoApproval: ['mcp__changing__env'], network: ['changing'] }, (config) => {
    config.mcp.servers = resolveMcpServers({ changing: { command: 'node', args: [SERVER, SDK], env: { API_TOKEN: 'from-the-server-env' } } }, {});
    config.defaults.credentials = [{ host: 'api.example.test', header: 'Authorization', value: `Bearer ${SECRET}`, env: 'API_TOKEN' }];
  });
}, 60_000);
afterAll(async () => bot?.close());

describe('a networked stdio MCP server in a world with credentials', () => {
  it('sees the placeholder (over its own env) and the CA, and the value reaches no model request', async () => {
    const from = bot.fake.requests.length;
    const seen: string[] = [];
    bot.fake.setBrain(stepsBrain([toolUseReply('mcp__changing__env', {}, { text: 'Env.' }), textReply('ok')], seen));
    await bot.say('show', 'cred');
    expect(seen).toEqual(['API_TOKEN=skillbot-credential-API_TOKEN; CA mounted']);
    const sent = bot.fake.requests.slice(from).map((request) => request.rawBody).join('\n');
    expect(sent).toContain('skillbot-credential-API_TOKEN');
    expect(sent).not.toContain(SECRET);
  }, 60_000);
});
