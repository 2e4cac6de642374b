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

describe('approving MCP calls', () => {
  it("the requester's yes for this thread covers the next call of that tool, and not another tool", async () => {
    const seen: string[] = [];
    bot.fake.setBrain(
      stepsBrain(
        [
          toolUseReply('mcp__everything__echo', { message: 'one' }, { text: 'First.' }),
          toolUseReply('mcp__everything__echo', { message: 'two' }, { text: 'Again.' }),
          toolUseReply('mcp__everything__get-sum', { a: 2, b: 3 }, { text: 'Now a sum.' }),
          textReply('all done'),
        ],
        seen,
      ),
    );
    const before = bot.questions.length;
    bot.answers.push({ option: 'yes_in_session' }, { option: 'yes_once' });
    await bot.say('echo twice then add', 'grant-chat');
    const asked = bot.questions.slice(before).map((question) => question.title);
    expect(asked).toEqual(['Call mcp__everything__echo (MCP server everything)?', 'Call mcp__everything__get-sum (MCP server everything)?']);
    expect(seen[0]).toContain('Echo: one');
    expect(seen[1]).toContain('Echo: two');
    expect(seen[2]).toContain('5');
  }, 60_000);

  it("a stranger's click does nothing, and the requester's no reaches the model as a declined call", async () => {
    const seen: string[] = [];
    bot.fake.setBrain(stepsBrain([toolUseReply('mcp__everything__echo', { message: 'secret' }, { text: 'Echoing.' }), textReply('ok')], seen));
    const before = bot.questions.length;
    const said = bot.say('echo', 'no-chat');
    for (let i = 0; i < 200 && bot.questions.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const question = bot.questions[before]!;
    const stranger = await bot.app.approvals.respond({ worldId: question.worldId, approvalId: question.id, option: 'yes_once', userId: 'U-stranger' });
    expect(stranger.kind).toBe('not_allowed');
    await bot.app.approvals.respond({ worldId: question.worldId, approvalId: question.id, option: 'no', userId: question.requesterId });
    await said;
    expect(seen[0]).toBe('The tool call mcp__everything__echo did not run: it was declined by U1. No output exists.');
  }, 60_000);

  it('arguments that do not match the schema are refused before anyone is asked', async () => {
    const seen: string[] = [];
    bot.fake.setBrain(stepsBrain([toolUseReply('mcp__everything__get-sum', { a: 'two' }, { text: 'Adding.' }), textReply('ok')], seen));
    const before = bot.questions.length;
    await bot.say('add', 'schema-chat');
    expect(bot.questions.length).toBe(before);
    expect(seen[0]).toMatch(/^mcp__everything__get-sum was not called: the arguments do not match the tool's input schema/);
  }, 60_000);

  it('images reach the model as image blocks, structured content as JSON text', async () => {
    const results: unknown[] = [];
    bot.fake.setBrain((req) => {
      const last = req.messages.at(-1);
      const block = Array.isArray(last?.content) ? last.content.find((item: { type?: string }) => item.type === 'tool_result') : undefined;
      if (block !== undefined) results.push(block.content);
      if (results.length === 0) return toolUseReply('mcp__everything__get-tiny-image', {}, { text: 'An image.' });
      if (results.length === 1) return toolUseReply('mcp__everything__get-structured-content', { location: 'New York' }, { text: 'Weather.' });
      return textReply('seen');
    });
    bot.answers.push({ option: 'yes_once' }, { option: 'yes_once' });
    await bot.say('show me', 'image-chat');
    expect(JSON.stringify(results[0])).toContain('"type":"image"');
    expect(JSON.stringify(results[0])).toContain('image/png');
    expect(JSON.stringify(results[1])).toContain('Structured content:');
    expect(lastToolResult).toBeDefined();
  }, 60_000);
});

describe('mcpNoApproval', () => {
  let quiet: McpHarness;
  beforeAll(async () => {
    quiet = await startMcpHarness({ everything: { command: 'node', args: [EVERYTHING_ENTRY, 'stdio'] } }, { mcpNoApproval: ['mcp__everything__echo'] });
  }, 60_000);
  afterAll(async () => quiet?.close());

  it('runs a listed tool without a card, and still asks for one not listed', async () => {
    const seen: string[] = [];
    quiet.fake.setBrain(stepsBrain([toolUseReply('mcp__everything__echo', { message: 'quiet' }, { text: 'Echo.' }), toolUseReply('mcp__everything__get-sum', { a: 1, b: 1 }, { text: 'Sum.' }), textReply('ok')], seen));
    quiet.answers.push({ option: 'no' });
    await quiet.say('go');
    expect(seen[0]).toContain('Echo: quiet');
    expect(quiet.questions.map((question) => question.title)).toEqual(['Call mcp__everything__get-sum (MCP server everything)?']);
  }, 60_000);
});

describe('past agent.mcpToolBudgetChars', () => {
  let small: McpHarness;
  beforeAll(async () => {
    small = await startMcpHarness({ everything: { command: 'node', args: [EVERYTHING_ENTRY, 'stdio'] } }, {}, (config) => {
      config.agent.mcpToolBudgetChars = 100;
    });
  }, 60_000);
  afterAll(async () => small?.close());

  it('the model finds a tool with find_mcp_tools and calls it with call_mcp_tool, approved the same way', async () => {
    const seen: string[] = [];
    let tools: string[] = [];
    small.fake.setBrain((req) => {
      tools = req.tools.map((tool) => tool.name);
      return stepsBrain(
        [
          toolUseReply('find_mcp_tools', { query: 'add two numbers sum' }, { text: 'Searching.' }),
          toolUseReply('call_mcp_tool', { name: 'mcp__everything__get-sum', arguments: { a: 40, b: 2 } }, { text: 'Calling.' }),
          textReply('ok'),
        ],
        seen,
      )(req);
    });
    small.answers.push({ option: 'yes_once' });
    await small.say('add');
    // read_mcp_resource is ours (it reads a server's resources): past the budget the servers' own tools give way to the pair.
    expect(tools.filter((name) => name.includes('mcp') && name !== 'read_mcp_resource')).toEqual(['find_mcp_tools', 'call_mcp_tool']);
    expect(seen[0]).toContain('name: mcp__everything__get-sum');
    expect(seen[0]).toContain('input schema: {');
    expect(small.questions.map((question) => question.title)).toEqual(['Call mcp__everything__get-sum (MCP server everything)?']);
    expect(seen[1]).toContain('42');
  }, 60_000);
});
