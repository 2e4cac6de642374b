// `@skillbot /mcp attach` and `@skillbot /mcp prompt` in a Slack thread, through the fake Slack: the resource lands
// in the thread as a file; the prompt's messages become the thread's turn (the model reads them, naming the prompt)
// and its answer is posted there. Our own server on the current SDK, in the sandbox.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, textReply } from '../../fakes/anthropic.ts';
import type { FakeSlack } from '../../fakes/slack.ts';
import { makeSkillsDir } from '../../platforms/skills.ts';
import { ALICE, CHANNEL, type SlackBot, useSlackBot } from '../../slack/harness.ts';
import { ourStdioServerConfig } from '../fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'resourceServer.mjs');
afterAll(() => setup.remove());

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('notes', SERVER));
useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

const say = async (text: string) => {
  const ts = bot.sender.nextTs();
  await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> ${text}` });
  return ts;
};

describe('/mcp in a Slack thread', () => {
  it('attach shares the resource in the thread as a file', async () => {
    const ts = await say('/mcp attach notes notes://team/handbook.md');
    const upload = await slack.waitFor(() => slack.uploads.find((each) => each.threadTs === ts), { what: 'the file', timeoutMs: 30_000 });
    expect(upload.name).toBe('handbook.md');
    expect(upload.title).toBe('notes://team/handbook.md from notes');
    expect(Buffer.from(upload.bytes).toString('utf8')).toBe('# Team handbook\nDeploys happen on Tuesdays.\n');
  }, 60_000);

  it("prompt runs the prompt's messages as the thread's turn, and the answer is posted there", async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req)}`));
    const ts = await say('/mcp prompt notes standup team=web');
    // The whole answer (a streamed message holds part of it a while first).
    const expected = "heard: (the prompt standup of the MCP server notes)\n\nSummarise yesterday's work of the web team in three bullet points.";
    await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => message.text.includes(expected)), { what: 'the answer', timeoutMs: 30_000 });
  }, 60_000);

  it('a mistake is one line in the thread, and no turn', async () => {
    const before = anthropic.requests.length;
    const ts = await say('/mcp prompt notes standup');
    await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => message.text === 'Not run: the prompt notes/standup needs team=….'), { what: 'the line', timeoutMs: 30_000 });
    expect(anthropic.requests.length).toBe(before);
  }, 60_000);
});
