// A long MCP call as thread work, through Discord: a server of our own on the current SDK, in the sandbox, answers
// `build` with a task handle; the turn ends at once and the thread gets the note "jobs: build is running as a task"
// with a `task:<id>:cancel` button. A stranger's click is refused ephemerally; the requester's cancels it on the
// server, and the model's answer about the cancelled task is posted once in that thread.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser } from '../fakes/discord.ts';
import { ourStdioServerConfig } from '../mcp/fixtures/serverSdk.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { botMessages, buttonIds, type DiscordBot, threadOn, useDiscordBot } from './harness.ts';

const SERVER = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'taskServer.mjs');
const RUN_MS = 20_000;
const setup = await makeSkillsDir([]);
afterAll(() => setup.remove());
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('jobs', SERVER, { args: [`${RUN_MS}`], noApproval: true }));

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let bot: DiscordBot;
let alice: FakeUser;
let bob: FakeUser;
useDiscordBot((started) => ({ discord, anthropic, bot, alice, bob } = started), { env: { SKILLBOT_CONFIG: configFile } });

const NOTE = 'jobs: build is running as a task';
const ended = (thread: FakeChannel) => botMessages(discord, thread.id).filter((message) => message.content.includes('Build finished.'));

function answerTo(interaction: FakeInteraction, what: string): Promise<FakeMessage> {
  return discord.waitFor(() => discord.world.messages.find((posted) => posted.interactionId === interaction.id && posted.content !== ''), what);
}

describe('MCP tasks in a Discord thread', () => {
  it('the note carries task:<id>:cancel; a stranger is refused ephemerally, the requester cancels, answered once', async () => {
    anthropic.setBrain((req) => {
      const said = lastUserText(req) ?? '';
      if (said.includes('has ended')) return textReply(`Build finished. ${said.split('\n').slice(1).join(' ')}`);
      const result = lastToolResult(req);
      if (result === undefined) return toolUseReply('mcp__jobs__build', {}, { text: 'Starting the build.' });
      return textReply(`Started: ${result.content.split(' (')[0]}`);
    });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> build the project`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes(`Started: ${NOTE}`)), 'the first answer', 30_000);
    const note = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content === NOTE), 'the task note');
    const [task] = await bot.app.mcp!.tasks.book.list();
    expect(buttonIds(note)).toEqual([`task:${task!.id}:cancel`]);

    const bobs = await answerTo(discord.click(bob, note, `task:${task!.id}:cancel`), "Bob's refusal");
    expect(bobs.ephemeral).toBe(true);
    expect(bobs.content).toContain('Only the person who started jobs: build');
    expect((await bot.app.mcp!.tasks.book.get(task!.id))?.status).toBe('working');

    const alices = await answerTo(discord.click(alice, note, `task:${task!.id}:cancel`), "Alice's cancel");
    expect(alices.ephemeral).toBe(true);
    expect(alices.content).toMatch(/^Cancelling jobs: build/);
    await discord.waitFor(() => ended(thread)[0], 'the answer after the cancel', 30_000);
    expect(ended(thread)[0]!.content).toContain('was cancelled');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(ended(thread)).toHaveLength(1);
    expect((await bot.app.mcp!.tasks.book.get(task!.id))?.status).toBe('cancelled');
  }, 120_000);
});
