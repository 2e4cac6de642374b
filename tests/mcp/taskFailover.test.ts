// A long MCP call as thread work across two instances, through the Slack fake (issue 38 item 4): two bots (two
// real Apps, each with the real Slack launcher) share one SQLite store and serve one workspace; the remote server
// of our own (Streamable HTTP, 2025-11-25 handshake, the tasks extension) runs `build` as a task. Alice asks bot A;
// A holds the task's lease and polls it; A is stopped (its leases are left to lapse, as a killed process's are);
// B takes the lease over after it lapsed, the task completes, and the model's answer is posted in Alice's thread
// exactly once, counted over every message call the fake received. The task runs TASK_TEST_RUN_MS (default 8 s;
// 120000 for the real two-minute run); the takeover waits for the lease (60 s, and up to a quarter more) either way. Before that, a task's
// Cancel button clicked on the instance that does not poll it: the server is told, the thread answered once.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, BOB, DM, type SlackBot, startSlackBot } from '../slack/harness.ts';
import { startTaskHttpServer, type TaskHttpServer } from './fixtures/taskHttpServer.ts';

const RUN_MS = Number(process.env.TASK_TEST_RUN_MS ?? 8_000);
/** The app's lease on a task (taskPoller.ts): how long a dead holder's task waits for another instance. */
const LEASE_MS = 60_000;

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let server: TaskHttpServer;
let a: SlackBot;
let b: SlackBot;
const stopped = new Set<SlackBot>();

beforeAll(async () => {
  [slack, anthropic, skills, server] = await Promise.all([startFakeSlack(), startFakeAnthropic(), makeSkillsDir([]), startTaskHttpServer(RUN_MS)]);
  const config = join(skills.dir, 'skillbot.yaml');
  await writeFile(config, ['mcpServers:', `  jobs: { type: http, url: ${JSON.stringify(server.url)} }`, 'defaults:', "  mcp: ['*']", "  mcpNoApproval: ['mcp__jobs__*']", ''].join('\n'));
  const shared = { slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: `sqlite://${join(skills.dir, 'shared.sqlite')}`, env: { SKILLBOT_CONFIG: config } };
  a = await startSlackBot(shared);
  b = await startSlackBot(shared);
}, 60_000);

afterAll(async () => {
  for (const bot of [a, b]) if (bot !== undefined && !stopped.has(bot)) await bot.stop();
  await Promise.all([slack?.close(), anthropic?.close(), server?.close(), skills?.remove()]);
});

const ENDED = 'Build finished.';
/** Every chat.* call that wrote the model's answer about the ended task (a post, an update, a stream's part). */
const answerWrites = () => slack.calls.filter((call) => call.method.startsWith('chat.') && JSON.stringify(call.params).includes(ENDED));

/** Alice asks bot A for a build in a new DM thread; resolves once the turn answered (it does not wait for the task). */
async function startBuild(): Promise<string> {
  anthropic.setBrain((req) => {
    const said = lastUserText(req) ?? '';
    if (said.includes('has ended')) return textReply(`${ENDED} ${said.split('\n').slice(1).join(' ')}`);
    const result = lastToolResult(req);
    if (result === undefined) return toolUseReply('mcp__jobs__build', {}, { text: 'Starting the build.' });
    return textReply(`Started: ${result.content.split(' (')[0]}`);
  });
  const ts = a.sender.nextTs();
  await a.sender.message({ channel: DM, user: ALICE, ts, text: 'build the project', channelType: 'im' });
  await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.stream === 'stopped' && message.text.includes('Started: jobs: build is running as a task')), { what: 'the first answer', timeoutMs: 30_000 });
  return ts;
}

const endedIn = (ts: string) => slack.thread(DM, ts).filter((message) => message.text.includes(ENDED));

describe('an MCP task across two instances, through Slack', () => {
  it('the Cancel button clicked on the instance that does not poll it: refused to another person, cancelled for the requester, answered once', async () => {
    const ts = await startBuild();
    const note = await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.text === 'jobs: build is running as a task'), { what: 'the task note' });
    const [task] = await a.app.mcp!.tasks.book.list();
    // The click reaches B (Slack sends an interaction to whichever instance its load balancer picks).
    const click = (user: string) => b.sender.click({ user, channel: DM, messageTs: note.ts, threadTs: ts, actionId: 'mcp_task_cancel', value: task!.id });
    await click(BOB);
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === BOB && entry.text.includes('Only the person who started jobs: build')), { what: "Bob's refusal" });
    await click(ALICE);
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === ALICE && entry.text.startsWith('Cancelling jobs: build')), { what: "Alice's cancel" });
    expect(server.jobs.get(task!.taskId)?.cancelled).toBe(true);
    const answer = await slack.waitFor(() => endedIn(ts).find((message) => message.stream === 'stopped'), { what: 'the answer after the cancel', timeoutMs: 30_000 });
    expect(answer.text).toContain('was cancelled');
    expect(answer.text).not.toContain('build 42 passed');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(endedIn(ts)).toHaveLength(1);
    expect((await b.app.mcp!.tasks.book.get(task!.id))?.status).toBe('cancelled');
  }, 120_000);

  it('is taken over by the other instance when its polling instance dies, and answered in the thread once', async () => {
    const started = Date.now();
    const ts = await startBuild();
    const [task] = await a.app.mcp!.tasks.book.list();
    expect(task).toMatchObject({ server: 'jobs', tool: 'build', requesterId: ALICE, status: 'working' });
    // A polls it (it holds the lease); then A stops, leaving the lease to lapse.
    const pollsBefore = server.polls.filter((id) => id === task!.taskId).length;
    await slack.waitFor(() => (server.polls.filter((id) => id === task!.taskId).length >= pollsBefore + 2 ? true : undefined), { what: "A's polls", timeoutMs: 10_000 });
    await a.stop();
    stopped.add(a);
    const killedAt = Date.now();
    const pollsWhenKilled = server.polls.length;
    const callsWhenKilled = slack.calls.length;

    const answer = await slack.waitFor(() => endedIn(ts).find((message) => message.stream === 'stopped'), { what: 'the answer after the task', timeoutMs: 1.25 * LEASE_MS + RUN_MS + 30_000 });
    const took = Date.now() - started;
    console.log(`task of ${RUN_MS} ms: answered ${(took / 1000).toFixed(1)} s after the message, ${((Date.now() - killedAt) / 1000).toFixed(1)} s after A stopped`);
    expect(answer.text).toContain('build 42 passed');
    expect(server.polls.length).toBeGreaterThan(pollsWhenKilled);
    // Whatever a late duplicate would do, give it time, then count.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(endedIn(ts)).toHaveLength(1);
    // Every message call since A stopped: one message opened in the thread (the answer's), and every write of the
    // answer's text went to that one message.
    const opened = slack.calls.slice(callsWhenKilled).filter((call) => (call.method === 'chat.postMessage' || call.method === 'chat.startStream') && call.params.thread_ts === ts);
    expect(opened).toHaveLength(1);
    const writes = answerWrites().filter((call) => call.params.ts === answer.ts || call.params.thread_ts === ts);
    expect(writes.length).toBeGreaterThan(0);
    expect(answerWrites().filter((call) => call.seq >= callsWhenKilled && call.params.ts !== answer.ts && call.params.thread_ts !== ts)).toEqual([]);
    expect((await b.app.mcp!.tasks.book.get(task!.id))?.status).toBe('completed');
    expect(await b.app.mcp!.tasks.book.runningIds()).toEqual([]);
  }, 600_000);
});
