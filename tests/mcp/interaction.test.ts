import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';
import { until } from '../until.ts';

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

/** The hostile server's processes (its sandbox's and its own) started by this test process's bot, by pid. */
function serverProcesses(): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent's pid follows the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const ours = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === process.pid) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    try {
      return ours(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(SERVER);
    } catch {
      return false;
    }
  });
}

/** Until the crashed server has exited: how long that takes depends on the machine's load, not on the bot. */
async function serverExited(what: string): Promise<void> {
  await until(() => (serverProcesses().length === 0 ? true : undefined), what, 20_000);
}

describe('a stdio server that dies', () => {
  it('is restarted once on its next use, and the model is told when a call fails', async () => {
    const first = await turn([toolUseReply('mcp__hostile__cancels', {}, { text: 'Pid.' }), textReply('ok')], 'die-1');
    const pid = /instance: (\w+)/.exec(first.seen[0]!)?.[1];
    expect(pid).toBeDefined();
    // The scan below sees the server while it runs (or it would prove nothing when it finds none).
    expect(serverProcesses().length).toBeGreaterThan(0);
    await turn([toolUseReply('mcp__hostile__crash', {}, { text: 'Crash.' }), textReply('ok')], 'die-2');
    await serverExited('the server to exit after its crash');
    // The bot hears of the exit on a later turn of its event loop: a call made before that fails, and the model is
    // told so (never answered by the dead instance); the first call after it is served by a new start.
    const failed: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 50 && after === undefined; i++) {
      const { seen } = await turn([toolUseReply('mcp__hostile__cancels', {}, { text: 'Pid again.' }), textReply('ok')], `die-3-${i}`);
      if (/^cancelled: /.test(seen[0] ?? '')) after = seen[0];
      else failed.push(seen[0] ?? '(no tool result)');
    }
    expect(failed.filter((result) => result.includes('instance:'))).toEqual([]);
    expect(after).toMatch(/^cancelled: 0, instance: \w+$/);
    expect(after).not.toContain(`instance: ${pid}`);
    // Dies again: left down, and a call says so in one sentence.
    await turn([toolUseReply('mcp__hostile__crash', {}, { text: 'Crash again.' }), textReply('ok')], 'die-4');
    await serverExited('the restarted server to exit after its second crash');
    let offered = true;
    for (let i = 0; i < 50 && offered; i++) {
      const down = await turn([textReply('nothing')], `die-5-${i}`);
      offered = down.tools[0]!.includes('mcp__hostile__cancels');
      if (offered) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(offered).toBe(false);
    // Left down: not started a third time by the turns that looked.
    expect(serverProcesses()).toEqual([]);
  }, 60_000);
});
