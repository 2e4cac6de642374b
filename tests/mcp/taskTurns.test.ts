// A long MCP call as thread work, through Slack (issue 38 item 4): a server of our own on the current SDK, in the
// sandbox, answers `build` with a task handle; the turn ends at once with the thread told "jobs: build is running as
// a task" with a Cancel button, and when the task ends (completed, or cancelled by the button: only the requester may)
// the model's answer about it is posted exactly once in that thread.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { ALICE, BOB, DM, type SlackBot, useSlackBot } from '../slack/harness.ts';
import { ourStdioServerConfig } from './fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, 'fixtures', 'taskServer.mjs');
const RUN_MS = 6_000;
afterAll(() => setup.remove());

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('jobs', SERVER, { args: [`${RUN_MS}`], noApproval: true }));
useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

const NOTE = 'jobs: build is running as a task';

/** Asks for a build in a new DM thread; resolves once the turn answered (it does not wait for the task). */
async function startBuild(): Promise<string> {
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
  // The turn did not wait for the task: it answered before the task could end.
  expect(Date.now() - sent).toBeLessThan(RUN_MS);
  expect(first.text).toContain(`Started: ${NOTE}`);
  expect(first.text).not.toContain('build 42 passed');
  return ts;
}

const noteIn = (ts: string) => slack.thread(DM, ts).find((message) => message.text === NOTE);
const endedIn = (ts: string) => slack.thread(DM, ts).filter((message) => message.text.includes('Build finished.'));

describe('MCP tasks in a Slack thread', () => {
  it('tells the thread the call runs as a task, ends the turn, and posts the answer once when it ends', async () => {
    const ts = await startBuild();
    const note = await slack.waitFor(() => noteIn(ts), { what: 'the task note' });
    expect(JSON.stringify(note.blocks)).toMatch(/"action_id":"mcp_task_cancel","text":\{"type":"plain_text","text":"Cancel"\},"value":"[0-9a-f-]{36}"/);
    const running = await bot.app.mcp!.tasks.book.list();
    expect(running.map((task) => [task.server, task.tool, task.requesterId, task.status])).toEqual([['jobs', 'build', ALICE, 'working']]);
    await slack.waitFor(() => endedIn(ts).find((message) => message.stream === 'stopped'), { what: 'the answer after the task', timeoutMs: 60_000 });
    expect(endedIn(ts)[0]!.text).toContain('build 42 passed');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(endedIn(ts)).toHaveLength(1);
    expect(await bot.app.mcp!.tasks.book.runningIds()).toEqual([]);
  }, 120_000);

  it('the Cancel button: refused privately to someone else, cancels on the server for the requester, answered once', async () => {
    const ts = await startBuild();
    const note = await slack.waitFor(() => noteIn(ts), { what: 'the task note' });
    const [task] = await bot.app.mcp!.tasks.book.list();
    const click = (user: string) => bot.sender.click({ user, channel: DM, messageTs: note.ts, threadTs: ts, actionId: 'mcp_task_cancel', value: task!.id });
    await click(BOB);
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === BOB && entry.text.includes('Only the person who started jobs: build')), { what: "Bob's refusal" });
    expect((await bot.app.mcp!.tasks.book.get(task!.id))?.status).toBe('working');
    await click(ALICE);
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === ALICE && entry.text.startsWith('Cancelling jobs: build')), { what: "Alice's cancel" });
    await slack.waitFor(() => endedIn(ts).find((message) => message.stream === 'stopped'), { what: 'the answer after the cancel', timeoutMs: 30_000 });
    expect(endedIn(ts)[0]!.text).toContain('was cancelled');
    expect(endedIn(ts)[0]!.text).not.toContain('build 42 passed');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(endedIn(ts)).toHaveLength(1);
    expect((await bot.app.mcp!.tasks.book.get(task!.id))?.status).toBe('cancelled');
  }, 120_000);
});
