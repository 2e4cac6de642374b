// Stopping a running turn from Discord (the stop:<turnId> button, a "stop" message) and /new in a DM.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NEW_CONVERSATION_TEXT } from '../../adapters/discord/messages.ts';
import { NOTHING_RUNNING_TEXT, STOP_NOT_ALLOWED_TEXT, STOP_PREFIX } from '../../adapters/discord/stop.ts';
import { type FakeAnthropic, lastToolResult, lastUserText, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { approvalIn, botMessages, buttonIds, type DiscordBot, makeSkillsDir, REPORT_SKILL, startDiscordBot, threadOn, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let bot: DiscordBot;
let alice: FakeUser;
let bob: FakeUser;
const held: Array<() => void> = [];

beforeAll(async () => {
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  alice = discord.addUser('alice');
  bob = discord.addUser('bob');
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot });
});
afterEach(() => {
  for (const release of held.splice(0)) release();
});
afterAll(async () => {
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
});

const stopButtonOf = (message: FakeMessage) => buttonIds(message).find((id) => id.startsWith(STOP_PREFIX));

describe('stopping a turn in Discord', () => {
  it('the Stop button on the status line: a stranger is refused privately, the requester stops it and the question closes no', async () => {
    anthropic.setBrain((req) => (lastToolResult(req) ? textReply('after the question') : toolUseReply('load_skill', { skill_id: REPORT_SKILL.id })));
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> how full is the disk?`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    await discord.waitFor(() => approvalIn(discord, thread.id), 'the approval question');
    const status = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => stopButtonOf(message)), 'the Stop button');
    const customId = stopButtonOf(status) ?? '';

    const stranger = discord.click(bob, status, customId);
    await discord.waitFor(
      () => discord.world.messages.find((message) => message.interactionId === stranger.id && message.ephemeral && message.content === STOP_NOT_ALLOWED_TEXT),
      "Bob's refusal",
    );
    discord.click(alice, status, customId);
    await waitForBotMessage(discord, thread.id, `Stopped by <@${alice.id}>.`);
    const question = await discord.waitFor(() => {
      const shown = approvalIn(discord, thread.id);
      return shown && buttonIds(shown).length === 0 ? shown : undefined;
    }, 'the question closed');
    expect(question.content).toMatch(/declined|no/i);
    expect(botMessages(discord, thread.id).some((message) => message.content === 'after the question')).toBe(false);
  });

  it('"stop" in the thread ends a model stream at once and the message waiting behind it is answered', async () => {
    anthropic.setBrain(async (req) => {
      if (lastUserText(req)?.includes('long essay')) await new Promise<void>((resolve) => held.push(resolve));
      return textReply(`answered: ${lastUserText(req) ?? ''}`);
    });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> write a long essay`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    await discord.waitFor(() => held.length > 0, 'the model call');
    discord.say(alice, thread, 'then a short one');
    discord.say(alice, thread, 'stop');
    await waitForBotMessage(discord, thread.id, `Stopped by <@${alice.id}>.`);
    await waitForBotMessage(discord, thread.id, 'answered: then a short one');
    expect(botMessages(discord, thread.id).some((message) => message.content.startsWith('answered: write a long essay'))).toBe(false);
  });

  it('"@bot stop" in a channel opens no thread and tells the person privately that nothing runs there', async () => {
    const requests = anthropic.requests.length;
    const mention = discord.say(bob, discord.general, `<@${discord.bot.id}> stop`);
    const dm = discord.world.dmWith(bob);
    await waitForBotMessage(discord, dm.id, NOTHING_RUNNING_TEXT);
    expect(threadOn(discord, mention.id)).toBeUndefined();
    expect(anthropic.requests.length).toBe(requests);
  });

  it('/new in a DM starts a fresh conversation', async () => {
    const seen: string[] = [];
    anthropic.setBrain((req) => {
      seen.push(JSON.stringify(req.messages));
      return textReply(`heard: ${lastUserText(req) ?? ''}`);
    });
    const dm = discord.world.dmWith(alice);
    discord.dm(alice, 'the word is mango');
    await waitForBotMessage(discord, dm.id, 'heard: the word is mango');
    discord.dm(alice, '/new');
    await waitForBotMessage(discord, dm.id, NEW_CONVERSATION_TEXT);
    discord.dm(alice, 'what was the word?');
    await waitForBotMessage(discord, dm.id, 'heard: what was the word?');
    expect(seen.at(-1)).not.toContain('mango');
  });
});
