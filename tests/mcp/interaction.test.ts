import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const SDK = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = join(import.meta.dirname, 'fixtures', 'hostileServer.mjs');
// needs-person is listed too: its server's requiresUserInteraction still asks every time.
const QUIET = ['never', 'cancels', 'add-tool', 'late', 'crash', 'needs-person'].map((tool) => `mcp__hostile__${tool}`);

let bot: McpHarness;
beforeAll(async () => {
  bot = await startMcpHarness({}, { mcpNoApproval: QUIET }, (config) => {
    config.mcp.servers = resolveMcpServers({ hostile: { command: 'node', args: [SERVER, SDK] } }, {});
  });
}, 60_000);
afterAll(async () => bot?.close());

async function turn(steps: Parameters<typeof stepsBrain>[0], chat: string): Promise<{ seen: string[]; tools: string[][]; reply: string }> {
  const seen: string[] = [];
  const tools: string[][] = [];
  bot.fake.setBrain((req) => {
    tools.push(req.tools.map((tool) => tool.name));
    return stepsBrain(steps, seen)(req);
  });
  const { reply } = await bot.say('go', chat);
  return { seen, tools, reply };
}

describe('a tool the server marks requiresUserInteraction', () => {
  it('is asked every time (even where mcpNoApproval lists it), never with "for this thread"', async () => {
    const before = bot.questions.length;
    bot.answers.push({ option: 'yes_once' }, { option: 'yes_once' });
    const { seen } = await turn([toolUseReply('mcp__hostile__needs-person', { amount: 5 }, { text: 'Paying.' }), toolUseReply('mcp__hostile__needs-person', { amount: 6 }, { text: 'Again.' }), textReply('paid')], 'ui');
    const asked = bot.questions.slice(before);
    expect(asked).toHaveLength(2);
    for (const question of asked) {
      expect(question.options).toEqual(['yes_once', 'no']);
      expect(question.body).toContain('approve every call of this tool');
      expect(question.body).not.toContain('"Yes, for this thread"');
    }
    expect(seen).toEqual(['paid 5', 'paid 6']);
  }, 60_000);
});

describe('the tool list follows notifications/tools/list_changed', () => {
  it('offers a tool the server added, from the next request on', async () => {
    const { tools, seen } = await turn([toolUseReply('mcp__hostile__add-tool', {}, { text: 'Adding.' }), textReply('added')], 'lc1');
    expect(seen[0]).toBe('added');
    expect(tools[0]).not.toContain('mcp__hostile__late');
    for (let i = 0; i < 100; i++) {
      const next = await turn([textReply('look')], `lc-probe-${i}`);
      if (next.tools[0]!.includes('mcp__hostile__late')) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the added tool was never offered');
  }, 60_000);
});

describe('Stop', () => {
  it('cancels a call in flight (the server gets notifications/cancelled)', async () => {
    const said = turn([toolUseReply('mcp__hostile__never', {}, { text: 'Waiting.' }), textReply('never here')], 'stop');
    for (let i = 0; i < 300; i++) {
      if ((await bot.app.stops.running('terminal:local/stop')) !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stop = await bot.app.stops.request({ worldId: 'terminal:local', chatId: 'terminal:local/stop', userId: 'U1' });
    expect(stop.kind).toBe('stopping');
    const { reply } = await said;
    expect(reply).toBe('Stopped by U1.');
    const { seen } = await turn([toolUseReply('mcp__hostile__cancels', {}, { text: 'Counting.' }), textReply('ok')], 'stop-check');
    expect(seen[0]).toMatch(/^cancelled: 1,/);
  }, 60_000);
});

describe('a stdio server that dies', () => {
  it('is restarted once on its next use, and the model is told when a call fails', async () => {
    const first = await turn([toolUseReply('mcp__hostile__cancels', {}, { text: 'Pid.' }), textReply('ok')], 'die-1');
    const pid = /instance: (\w+)/.exec(first.seen[0]!)?.[1];
    await turn([toolUseReply('mcp__hostile__crash', {}, { text: 'Crash.' }), textReply('ok')], 'die-2');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await turn([toolUseReply('mcp__hostile__cancels', {}, { text: 'Pid again.' }), textReply('ok')], 'die-3');
    expect(after.seen[0]).toMatch(/^cancelled: 0, instance: \w+$/);
    expect(after.seen[0]).not.toContain(`instance: ${pid}`);
    // Dies again: left down, and a call says so in one sentence.
    await turn([toolUseReply('mcp__hostile__crash', {}, { text: 'Crash again.' }), textReply('ok')], 'die-4');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const down = await turn([textReply('nothing')], 'die-5');
    expect(down.tools[0]).not.toContain('mcp__hostile__cancels');
  }, 60_000);
});
