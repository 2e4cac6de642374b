// Discord's approval question beyond the platform contract (tests/platforms/contract.ts): what it shows, a click
// from another channel, clicking twice, a stop and restart, a command too long to show.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeChannel, type FakeDiscord, type FakeInteraction, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { reportBrain, type SkillsDir } from '../platforms/skills.ts';
import { approvalIn, botMessages, buttonIds, REPORT_SKILL, startDiscordBot, threadOn, useDiscordBot, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let alice: FakeUser;
const cleanups: Array<() => Promise<void>> = [];

useDiscordBot((started) => ({ discord, anthropic, skills, alice } = started));
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Asked {
  thread: FakeChannel;
  question: FakeMessage;
  approvalId: string;
}

/** Alice asks about the disk with a mention; resolves once the question is shown in the new thread. */
async function askForReport(fake: FakeDiscord, user: FakeUser): Promise<Asked> {
  reportBrain(anthropic);
  const mention = fake.say(user, fake.general, `<@${fake.bot.id}> how full is the disk?`);
  const thread = await fake.waitFor(() => threadOn(fake, mention.id), 'the thread');
  const question = await fake.waitFor(() => approvalIn(fake, thread.id), 'the approval question');
  const approvalId = /^hitl:([^:]+):/.exec(buttonIds(question)[0] ?? '')?.[1] ?? '';
  return { thread, question, approvalId };
}

/** The ephemeral notes a click got, once there. */
function noteFor(fake: FakeDiscord, click: FakeInteraction, text: string | RegExp): Promise<FakeMessage> {
  return fake.waitFor(
    () => fake.world.messages.find((message) => message.interactionId === click.id && message.ephemeral && (typeof text === 'string' ? message.content === text : text.test(message.content))),
    `an ephemeral note ${String(text)}`,
  );
}

/** Approval buttons (a running turn's status line carries a `stop:` button, which is not one). */
const hasButtons = (message: FakeMessage) => buttonIds(message).some((id) => id.startsWith('hitl:'));

describe('Discord approvals', () => {
  it('shows what will run in the thread, pings only the requester, with three hitl:<id>:<option> buttons', async () => {
    const { thread, question, approvalId } = await askForReport(discord, alice);
    expect(question.content).toContain(REPORT_SKILL.id);
    expect(question.content).toContain('scripts/report.sh');
    expect(question.content).toContain(`<@${alice.id}>`);
    expect(buttonIds(question)).toEqual([`hitl:${approvalId}:yes_once`, `hitl:${approvalId}:yes_in_session`, `hitl:${approvalId}:no`]);
    for (const id of buttonIds(question)) expect(id.length).toBeLessThanOrEqual(100);
    expect(question.pings).toEqual([`user:${alice.id}`]);
    discord.click(alice, question, `hitl:${approvalId}:no`);
    await waitForBotMessage(discord, thread.id, 'the script did not run');
    expect(question.content).toContain(`**Not run** by <@${alice.id}>`);
  });

  it('runs the script once the requester clicks yes, and edits the question: buttons gone, outcome shown', async () => {
    const { thread, question, approvalId } = await askForReport(discord, alice);
    const click = discord.click(alice, question, `hitl:${approvalId}:yes_once`);
    await waitForBotMessage(discord, thread.id, 'the script ran');
    expect(click.callbackType).toBe(6);
    expect(click.callbackAfterMs).toBeLessThan(3000);
    expect(hasButtons(question)).toBe(false);
    expect(question.content).toContain(`**Approved once** by <@${alice.id}>`);
    expect(question.history).toHaveLength(2);
  });

  it("a click on this approval's button from another channel changes nothing, and the clicker is told privately", async () => {
    const { thread, question, approvalId } = await askForReport(discord, alice);
    const other = discord.dm(alice, 'unrelated');
    await waitForBotMessage(discord, other.channelId, /.+/);
    const elsewhere = discord.click(alice, { ...question, channelId: other.channelId }, `hitl:${approvalId}:yes_once`);
    await noteFor(discord, elsewhere, /another channel/);
    expect(hasButtons(question)).toBe(true);
    expect(question.history).toHaveLength(1);
    discord.click(alice, question, `hitl:${approvalId}:no`);
    await waitForBotMessage(discord, thread.id, 'the script did not run');
  });

  it('counts the first of two clicks only; the second is told privately what was decided', async () => {
    const { thread, question, approvalId } = await askForReport(discord, alice);
    discord.click(alice, question, `hitl:${approvalId}:yes_once`);
    await waitForBotMessage(discord, thread.id, 'the script ran');
    const again = discord.click(alice, question, `hitl:${approvalId}:no`);
    const note = await noteFor(discord, again, /^Already answered/);
    expect(note.content).toContain(`**Approved once** by <@${alice.id}>`);
    expect(question.history).toHaveLength(2);
    expect(question.content).toContain('Approved once');
  });

  it('on stop, an open question says it lapsed; after a restart the turn asks again and the old buttons change nothing', async () => {
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const carol = fake.addUser('carol');
    const storeUrl = `sqlite://${join(skills.dir, 'stop.sqlite')}`;
    const first = await startDiscordBot({ discord: fake, anthropic, skillsRoot: skills.skillsRoot, storeUrl });
    const { thread, question, approvalId } = await askForReport(fake, carol);
    await first.stop();
    expect(hasButtons(question)).toBe(false);
    expect(question.content).toContain('lapsed');

    // The message was never answered: it stayed queued, and the restarted bot runs its turn again.
    const second = await startDiscordBot({ discord: fake, anthropic, skillsRoot: skills.skillsRoot, storeUrl });
    cleanups.push(() => second.stop());
    const asked = await fake.waitFor(() => botMessages(fake, thread.id).find((message) => message.id !== question.id && hasButtons(message)), 'the question asked again');
    const late = fake.click(carol, question, `hitl:${approvalId}:yes_once`);
    const note = await noteFor(fake, late, /^Already answered/);
    expect(note.content).toContain('lapsed');
    expect(hasButtons(asked)).toBe(true);
    const newId = /^hitl:([^:]+):/.exec(buttonIds(asked)[0] ?? '')?.[1] ?? '';
    fake.click(carol, asked, `hitl:${newId}:no`);
    await waitForBotMessage(fake, thread.id, 'the script did not run');
    expect(botMessages(fake, thread.id).filter((message) => message.content.startsWith('the script'))).toHaveLength(1);
  });

  it('never cuts what will run: a command too long for the message comes attached in full, invisible characters named', async () => {
    const args = [...Array.from({ length: 96 }, (_, i) => `--table=customers_archive_${i}_partition`), '--dry\u200B-run', '--drop-table', 'customers'];
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return toolUseReply('run_skill_script', { skill_id: REPORT_SKILL.id, script: 'scripts/report.sh', args });
      return textReply(result.content.includes('disk used: 42%') ? 'the script ran' : 'the script did not run');
    });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> archive everything`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    const question = await discord.waitFor(() => approvalIn(discord, thread.id), 'the approval question');
    const approvalId = /^hitl:([^:]+):/.exec(buttonIds(question)[0] ?? '')?.[1] ?? '';
    expect(question.attachments.map((file) => file.filename)).toEqual([`approval-${approvalId}.txt`]);
    expect(question.attachments[0]?.bytes.toString('utf8')).toContain('"--table=customers_archive_95_partition" "--dry<U+200B>-run" "--drop-table" "customers"');
    expect(question.content).toContain(`attached in full as \`approval-${approvalId}.txt\``);
    expect(question.content).not.toContain('--table=customers_archive_0_partition');
    discord.click(alice, question, `hitl:${approvalId}:no`);
    await waitForBotMessage(discord, thread.id, 'the script did not run');
    // The edit with the outcome keeps the attachment.
    expect(question.attachments).toHaveLength(1);
    expect(hasButtons(question)).toBe(false);
  });
});
