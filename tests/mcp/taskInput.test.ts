// A long task that needs the person midway (issue 38 item 4, `input_required`), through Slack: a server of our own
// (fixtures/inputTaskServer.mjs, on the official server SDK, in the sandbox) runs `release` as a task that soon
// asks how many replicas in its `inputRequests`. The poller puts it to Alice in the task's thread as a question
// card; she answers in the modal (a value outside the schema turned back first); the answer reaches the server in
// one tasks/update, the task completes, and the thread gets exactly one answer saying what the server was told.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { ALICE, BOB, DM, type SlackBot, useSlackBot } from '../slack/harness.ts';
import { ourStdioServerConfig } from './fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, 'fixtures', 'inputTaskServer.mjs');
afterAll(() => setup.remove());

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('releases', SERVER, { args: ['800'], noApproval: true }));
useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

type Blocks = Array<{ elements?: Array<{ action_id: string; value: string }> }>;

describe('an MCP task asking for input midway', () => {
  it('puts the question to the requester in the thread, sends the answer once, and the task completes with one answer', async () => {
    anthropic.setBrain((req) => {
      const said = lastUserText(req) ?? '';
      if (said.includes('has ended')) return textReply(`Release over. ${said.split('\n').slice(1).join(' ')}`);
      const result = lastToolResult(req);
      if (result === undefined) return toolUseReply('mcp__releases__release', {}, { text: 'Starting the release.' });
      return textReply('Started the release; it runs as a task.');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'release build 42', channelType: 'im' });
    await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.text === 'releases: release is running as a task'), { what: 'the task note', timeoutMs: 30_000 });

    const card = await slack.waitFor(() => slack.thread(DM, ts).find((message) => JSON.stringify(message.blocks ?? []).includes('mcp_elicit_open')), { what: 'the question card', timeoutMs: 30_000 });
    expect(JSON.stringify(card.blocks)).toContain('Release build 42 to production?');
    const id = (card.blocks as Blocks).flatMap((block) => block.elements ?? []).find((element) => element.action_id === 'mcp_elicit_open')?.value ?? '';
    const [task] = await bot.app.mcp!.tasks.book.list();
    // The card may show a moment before the poller's record says what it waits for.
    await expect.poll(() => bot.app.mcp!.tasks.book.get(task!.id), { timeout: 5_000 }).toMatchObject({ status: 'input_required', inputs: { 'approve-1': id } });

    // Someone else cannot open it; Alice can, and a value outside the schema is turned back on its field.
    await bot.sender.click({ user: BOB, channel: DM, messageTs: card.ts, threadTs: ts, actionId: 'mcp_elicit_open', value: id });
    await slack.waitFor(() => slack.ephemerals.find((note) => note.user === BOB && note.text.includes(`Only <@${ALICE}> can answer this`)), { what: "Bob's refusal" });
    await bot.sender.click({ user: ALICE, channel: DM, messageTs: card.ts, threadTs: ts, actionId: 'mcp_elicit_open', value: id });
    const modal = await slack.waitFor(() => slack.modals.at(-1), { what: 'the modal' });
    const wrong = await bot.sender.submitView({ user: ALICE, view: { id: modal.id, ...modal.view }, answers: { replicas: '12' } });
    expect(wrong.json).toMatchObject({ response_action: 'errors', errors: { replicas: expect.stringContaining('must be <= 9') } });
    const right = await bot.sender.submitView({ user: ALICE, view: { id: modal.id, ...modal.view }, answers: { replicas: '3' } });
    expect(right.status).toBe(200);

    const ended = () => slack.thread(DM, ts).filter((message) => message.text.includes('Release over.') && message.stream === 'stopped');
    await slack.waitFor(() => ended()[0], { what: 'the answer after the task', timeoutMs: 60_000 });
    expect(ended()[0]!.text).toContain('released with 3 replicas (answers received: 1)');
    await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.ts === card.ts && message.text.includes('Answered by')), { what: 'the card marked answered' });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(ended()).toHaveLength(1);
    expect((await bot.app.mcp!.tasks.book.get(task!.id))).toMatchObject({ status: 'completed', sent: ['approve-1'] });
  }, 120_000);
});
