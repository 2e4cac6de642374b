// App Home lists a person's MCP tasks (issue 38 item 4): Alice asks for a build that a server of our own runs as a
// task; her Home shows it (server, tool, state, since when, a link to the thread) with the thread note's Cancel
// button, Bob's Home does not; Alice's Cancel there is answered privately in the task's thread, her Home is
// published again, and the thread gets one answer saying the build was cancelled.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { ourStdioServerConfig } from '../mcp/fixtures/serverSdk.ts';
import { ALICE, BOB, DM, type SlackBot, useSlackBot } from './harness.ts';

const SERVER = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'taskServer.mjs');
/** Longer than the test: the task ends only by its Cancel. */
const RUN_MS = 120_000;
afterAll(() => setup.remove());

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('jobs', SERVER, { args: [`${RUN_MS}`], noApproval: true }));
useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

async function openHome(user: string): Promise<string> {
  const before = slack.views.length;
  await bot.sender.event({ type: 'app_home_opened', user, channel: DM, tab: 'home', event_ts: bot.sender.nextTs() });
  return JSON.stringify((await slack.waitFor(() => slack.views[before], { what: 'the Home tab' })).view.blocks);
}

describe("App Home's MCP tasks", () => {
  it("lists the requester's running task with Cancel, not to others; Cancel there is answered in the thread", async () => {
    anthropic.setBrain((req) => {
      const said = lastUserText(req) ?? '';
      if (said.includes('has ended')) return textReply(`Build over. ${said.split('\n').slice(1).join(' ')}`);
      const result = lastToolResult(req);
      if (result === undefined) return toolUseReply('mcp__jobs__build', {}, { text: 'Starting the build.' });
      return textReply('Started.');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'build the project', channelType: 'im' });
    await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.text === 'jobs: build is running as a task'), { what: 'the task note', timeoutMs: 30_000 });
    const [task] = await bot.app.mcp!.tasks.book.list();

    const home = await openHome(ALICE);
    expect(home).toContain('Your MCP tasks');
    expect(home).toContain('*jobs*: `build`, working');
    expect(home).toContain(`https://slack.com/archives/${DM}/p${ts.replace('.', '')}`);
    expect(home).toContain(`"action_id":"mcp_task_cancel","text":{"type":"plain_text","text":"Cancel"},"value":"${task!.id}"`);
    const bobs = await openHome(BOB);
    expect(bobs).toContain('None running.');
    expect(bobs).not.toContain(task!.id);

    const published = slack.views.length;
    await bot.sender.homeClick({ user: ALICE, actionId: 'mcp_task_cancel', value: task!.id });
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === ALICE && entry.channel === DM && entry.text.startsWith('Cancelling jobs: build')), { what: "Alice's cancel, in the task's thread" });
    await slack.waitFor(() => slack.views[published], { what: 'the Home published again' });
    const ended = () => slack.thread(DM, ts).filter((message) => message.text.includes('Build over.') && message.stream === 'stopped');
    await slack.waitFor(() => ended()[0], { what: 'the answer after the cancel', timeoutMs: 30_000 });
    expect(ended()[0]!.text).toContain('was cancelled');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(ended()).toHaveLength(1);
    expect(await openHome(ALICE)).toContain('None running.');
  }, 120_000);
});
