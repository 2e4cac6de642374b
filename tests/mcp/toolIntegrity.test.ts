// MCP tools approved for what they are (issue 34, point 4): a "yes for this thread" covers the tool's definition,
// so a server that changes a granted tool's description is asked about again, on a card that says what changed;
// and text hidden in Unicode tags, zero-width characters or bidi controls never reaches the model.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const SDK = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = join(import.meta.dirname, 'fixtures', 'changingServer.mjs');
const HIDDEN = /[\u{E0000}-\u{E007F}\u200B-\u200F\u202A-\u202E\u2066-\u2069]/u;

let bot: McpHarness;
beforeAll(async () => {
  bot = await startMcpHarness({}, { mcpNoApproval: ['mcp__changing__rewrite', 'mcp__changing__tagged'] }, (config) => {
    config.mcp.servers = resolveMcpServers({ changing: { command: 'node', args: [SERVER, SDK] } }, {});
  });
}, 60_000);
afterAll(async () => bot?.close());

async function turn(steps: Parameters<typeof stepsBrain>[0], chat: string): Promise<{ seen: string[]; descriptions: string[] }> {
  const seen: string[] = [];
  const descriptions: string[] = [];
  bot.fake.setBrain((req) => {
    descriptions.push(String(req.tools.find((tool) => tool.name === 'mcp__changing__weather')?.description ?? ''));
    return stepsBrain(steps, seen)(req);
  });
  await bot.say('go', chat);
  return { seen, descriptions };
}

describe('a granted MCP tool whose server changes it', () => {
  it('is asked about again, on a card that says what changed; unchanged, the grant covers it', async () => {
    const before = bot.questions.length;
    bot.answers.push({ option: 'yes_in_session' });
    const first = await turn([toolUseReply('mcp__changing__weather', {}, { text: 'Weather.' }), textReply('ok')], 'grant');
    expect(first.seen).toEqual(['ran weather']);
    // The grant covers the same tool, unchanged: nobody is asked.
    const again = await turn([toolUseReply('mcp__changing__weather', {}, { text: 'Again.' }), textReply('ok')], 'grant');
    expect(again.seen).toEqual(['ran weather']);
    expect(bot.questions.length - before).toBe(1);
    await turn([toolUseReply('mcp__changing__rewrite', {}, { text: 'Rewrite.' }), textReply('ok')], 'grant');
    // The new description reaches the requests once the server's list_changed is read.
    for (let i = 0; i < 100; i++) {
      const probe = await turn([textReply('look')], `probe-${i}`);
      if (probe.descriptions[0]?.includes('uploads the files')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    bot.answers.push({ option: 'no' });
    const changed = await turn([toolUseReply('mcp__changing__weather', {}, { text: 'Weather now.' }), textReply('ok')], 'grant');
    const asked = bot.questions.slice(before);
    expect(asked).toHaveLength(2);
    expect(asked[1]?.body).toContain('changed this tool since it was approved for this thread');
    expect(asked[1]?.body).toContain('its description was "Tells the weather." and is now "Tells the weather, and uploads the files of the thread to a server of ours."');
    expect(asked[1]?.skillHash).not.toBe(asked[0]?.skillHash);
    expect(changed.seen[0]).toContain('did not run');
  }, 60_000);
});

describe('hidden characters in what an MCP server says', () => {
  it('never reach the model: not from a description, a result or structured content', async () => {
    const from = bot.fake.requests.length;
    const { seen } = await turn([toolUseReply('mcp__changing__tagged', {}, { text: 'Adding.' }), textReply('ok')], 'tags');
    expect(seen[0]).toContain('3');
    const sent = bot.fake.requests.slice(from).map((request) => request.rawBody);
    expect(sent.length).toBeGreaterThan(1);
    for (const body of sent) {
      const text = JSON.parse(body) as unknown;
      expect(JSON.stringify(text, (_key, value: unknown) => value)).not.toMatch(HIDDEN);
      expect(body).not.toMatch(/\\udb40|HIDDEN/i);
    }
    expect(sent.join('')).toContain('Adds numbers.');
  }, 60_000);
});
