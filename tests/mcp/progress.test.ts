// A server's progress notifications on the turn's status: a server of our own on the current SDK (2026-07-28),
// started in the sandbox, copies ten files and says how far it is; Slack's assistant status names the server and
// the tool with each step ("drive: sync_files, 3/10 files"), at most once a second, then clears.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { ALICE, DM, type SlackBot, useSlackBot } from '../slack/harness.ts';
import { ourStdioServerConfig, SERVER_SDK } from './fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, 'fixtures', 'progressServer.mjs');
const server = { name: 'drive', type: 'stdio' as const, command: 'node', args: [SERVER, SERVER_SDK], env: {} };
afterAll(() => setup.remove());

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('drive', SERVER, { noApproval: true }));
useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

const statuses = (channel: string, threadTs: string) =>
  slack.assistantCalls.filter((call) => call.method === 'setStatus' && call.channel === channel && call.threadTs === threadTs).map((call) => call.text);

describe('MCP progress', () => {
  it('speaks 2026-07-28 with a server of the current SDK, in the sandbox', async () => {
    const connected = await bot.app.mcp!.connections.get(server, { worldId: 'slack:probe', personId: ALICE, network: false });
    if (!connected.ok) throw new Error(connected.why);
    expect(connected.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(connected.tools().map((tool) => tool.name)).toEqual(['sync_files']);
  }, 60_000);

  it("shows the server's progress on the Slack assistant status, at most once a second, and the answer after", async () => {
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (result === undefined) return toolUseReply('mcp__drive__sync_files', { count: 10, everyMs: 200 }, { text: 'Syncing.' });
      return textReply(`done: ${result.content}`);
    });
    const ts = bot.sender.nextTs();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'sync the files', channelType: 'im' });
    const answer = await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.stream === 'stopped' && message.text.includes('done:')), { what: 'the answer', timeoutMs: 20_000 });
    expect(answer.text).toBe('Syncing.\n\ndone: synced 10 files');
    const seen = statuses(DM, ts);
    const progress = seen.filter((status) => status.startsWith('drive: '));
    // Ten notifications over two seconds: the first at once, then one a second at most (the server's own words
    // after the count), and nothing of it once the call ended.
    expect(progress[0]).toBe('drive: sync_files, 1/10 files');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(3);
    const steps = progress.map((status) => Number(/, (\d+)\/10 files$/.exec(status)?.[1]));
    for (let index = 1; index < steps.length; index++) expect(steps[index]! - steps[index - 1]!).toBeGreaterThanOrEqual(4);
    await slack.waitFor(() => statuses(DM, ts).at(-1) === '', { what: 'the status to clear' });
  }, 60_000);
});
