// A long MCP call as thread work, through Slack (issue 38 item 4): a server of our own on the current SDK, in the
// sandbox, answers `build` with a task handle; the turn ends at once with the thread told "jobs: build is running as
// a task", and when the task completes the model's answer about it is posted exactly once in that thread.
import { realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { ALICE, DM, type SlackBot, useSlackBot } from '../slack/harness.ts';

const SERVER = join(import.meta.dirname, 'fixtures', 'taskServer.mjs');
const SERVER_SDK = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server'));
const RUN_MS = 6_000;
afterAll(() => setup.remove());

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ['mcpServers:', '  jobs:', '    command: node', `    args: [${JSON.stringify(SERVER)}, ${JSON.stringify(SERVER_SDK)}, "${RUN_MS}"]`, 'defaults:', "  mcp: ['*']", "  mcpNoApproval: ['mcp__jobs__*']", ''].join('\n'));
useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

describe('MCP tasks in a Slack thread', () => {
  it('tells the thread the call runs as a task, ends the turn, and posts the answer once when it ends', async () => {
    anthropic.setBrain((req) => {
      const said = lastUserText(req) ?? '';
      if (said.includes('has ended')) return textReply(`Build finished. ${said.split('\n').slice(1).join(' ')}`);
      const result = lastToolResult(req);
      if (result === undefined) return toolUseReply('mcp__jobs__build', {}, { text: 'Starting the build.' });
      return textReply(`Started: ${result.content.split(' (')[0]}`);
    });
    const ts = bot.sender.nextTs();
    const sent = Date.now();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'build the project', channelType: 'im' });
    const first = await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.stream === 'stopped' && message.text.includes('Started:')), { what: 'the first answer', timeoutMs: 30_000 });
    // The turn did not wait for the task: it answered before the task could end, with the note under the answer.
    expect(Date.now() - sent).toBeLessThan(RUN_MS);
    expect(first.text).toContain('Started: jobs: build is running as a task');
    expect(first.text).toContain('_jobs: build is running as a task_');
    expect(first.text).not.toContain('build 42 passed');
    const running = await bot.app.mcp!.tasks.book.list();
    expect(running.map((task) => [task.server, task.tool, task.requesterId, task.status])).toEqual([['jobs', 'build', ALICE, 'working']]);
    const ended = () => slack.thread(DM, ts).filter((message) => message.text.includes('Build finished.'));
    await slack.waitFor(() => ended().find((message) => message.stream === 'stopped'), { what: 'the answer after the task', timeoutMs: 60_000 });
    expect(ended()[0]!.text).toContain('build 42 passed');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(ended()).toHaveLength(1);
    expect(await bot.app.mcp!.tasks.book.runningIds()).toEqual([]);
  }, 120_000);
});
