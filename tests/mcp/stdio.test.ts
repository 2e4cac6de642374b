import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResult, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { EVERYTHING_ENTRY, type McpHarness, startMcpHarness } from './harness.ts';

let bot: McpHarness;
beforeAll(async () => {
  bot = await startMcpHarness({ everything: { command: 'node', args: [EVERYTHING_ENTRY, 'stdio'] } });
}, 60_000);
afterAll(async () => bot?.close());

describe('server-everything over stdio, in the sandbox', () => {
  it('offers its tools, asks with the full arguments, and the approved call reaches the model', async () => {
    const seen: string[] = [];
    let tools: string[] = [];
    bot.fake.setBrain((req) => {
      tools = req.tools.map((tool) => tool.name);
      return stepsBrain([toolUseReply('mcp__everything__echo', { message: 'hello from the thread' }, { text: 'I will echo it.' }), textReply('done')], seen)(req);
    });
    bot.answers.push({ option: 'yes_once' });
    const { reply } = await bot.say('echo something');
    expect(tools).toContain('mcp__everything__echo');
    expect(tools).toContain('mcp__everything__get-sum');
    const question = bot.questions.at(-1)!;
    expect(question.title).toBe('Call mcp__everything__echo (MCP server everything)?');
    expect(question.body).toContain('"message": "hello from the thread"');
    expect(question.body).toContain('its own claim, not checked): read-only');
    expect(question.options).toEqual(['yes_once', 'yes_in_session', 'no']);
    expect(seen[0]).toContain('Echo: hello from the thread');
    expect(reply).toContain('done');
  }, 60_000);
});
