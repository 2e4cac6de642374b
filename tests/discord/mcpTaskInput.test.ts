// A long MCP task that needs the person midway (`input_required`), through Discord: our own server on the current
// SDK (fixtures/inputTaskServer.mjs, in the sandbox) runs `release` as a task that soon asks how many replicas. The
// poller puts the question to Alice as a card in the task's thread; Bob's click is refused; Alice answers in the
// modal (a value outside the schema turned back first); the answer reaches the server once, the task completes, and
// the thread gets exactly one answer saying what the server was told.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser } from '../fakes/discord.ts';
import { ourStdioServerConfig } from '../mcp/fixtures/serverSdk.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { botMessages, buttonIds, type DiscordBot, threadOn, useDiscordBot } from './harness.ts';

const SERVER = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'inputTaskServer.mjs');
const setup = await makeSkillsDir([]);
afterAll(() => setup.remove());
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('releases', SERVER, { args: ['800'], noApproval: true }));

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let bot: DiscordBot;
let alice: FakeUser;
let bob: FakeUser;
useDiscordBot((started) => ({ discord, anthropic, bot, alice, bob } = started), { env: { SKILLBOT_CONFIG: configFile } });

const ended = (thread: FakeChannel) => botMessages(discord, thread.id).filter((message) => message.content.includes('Release over.'));

/** The ephemeral answer to an interaction, once it has its text (not "thinking…"). */
function answerTo(interaction: FakeInteraction, what: string): Promise<FakeMessage> {
  return discord.waitFor(() => discord.world.messages.find((posted) => posted.interactionId === interaction.id && posted.content !== ''), what);
}

function openModal(user: FakeUser, message: FakeMessage, id: string) {
  const opened = discord.click(user, message, `elicit:${id}:open`);
  return discord.waitFor(() => discord.modalOf(opened) && { opened, modal: discord.modalOf(opened)! }, 'the modal');
}

describe('an MCP task asking for input midway, in a Discord thread', () => {
  it('the card appears in the task thread, the requester answers in the modal, one answer is posted', async () => {
    anthropic.setBrain((req) => {
      const said = lastUserText(req) ?? '';
      if (said.includes('has ended')) return textReply(`Release over. ${said.split('\n').slice(1).join(' ')}`);
      if (lastToolResult(req) === undefined) return toolUseReply('mcp__releases__release', {}, { text: 'Starting the release.' });
      return textReply('Started the release; it runs as a task.');
    });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> release build 42`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content === 'releases: release is running as a task'), 'the task note', 30_000);

    const card = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => buttonIds(message).some((id) => /^elicit:[\w-]{16}:open$/.test(id))), 'the question card', 30_000);
    expect(card.content).toBe(`❓ **releases** asks <@${alice.id}>: Release build 42 to production?`);
    const id = buttonIds(card)[0]!.slice('elicit:'.length, -':open'.length);
    const [task] = await bot.app.mcp!.tasks.book.list();
    // The card may show a moment before the poller's record says what it waits for.
    await expect.poll(() => bot.app.mcp!.tasks.book.get(task!.id), { timeout: 5_000 }).toMatchObject({ status: 'input_required', inputs: { 'approve-1': id } });

    expect((await answerTo(discord.click(bob, card, `elicit:${id}:open`), "Bob's refusal")).content).toBe(`Only <@${alice.id}> can answer this.`);
    const first = await openModal(alice, card, id);
    expect(first.modal.fields.map((field) => field.label)).toEqual(['Replicas']);
    const turnedBack = await answerTo(discord.submitModal(alice, first.opened, { Replicas: '12' }), 'the wrong value turned back');
    expect(turnedBack.content).toContain('must be <= 9');
    const again = await openModal(alice, turnedBack, id);
    expect((await answerTo(discord.submitModal(alice, again.opened, { Replicas: '3' }), 'the sent note')).content).toBe('Sent to **releases**.');

    await discord.waitFor(() => ended(thread)[0], 'the answer after the task', 60_000);
    expect(ended(thread)[0]!.content).toContain('released with 3 replicas (answers received: 1)');
    await discord.waitFor(() => card.content.includes(`Answered by <@${alice.id}>`) && card.components.length === 0, 'the card marked answered');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(ended(thread)).toHaveLength(1);
    expect(await bot.app.mcp!.tasks.book.get(task!.id)).toMatchObject({ status: 'completed', sent: ['approve-1'] });
  }, 120_000);
});
