// Conversations end to end: /ask to a thread, mentions, DMs, /skill through the interaction webhook (a chat going
// on in its thread is the platform contract's, tests/platforms/contract.ts).
import { describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeChannel, FakeDiscord, FakeInteraction, FakeUser } from '../fakes/discord.ts';
import { botMessages, buttonIds, messageText, NOTES_SKILL, threadOn, useDiscordBot, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let alice: FakeUser;
let bob: FakeUser;

/** The model says how many user messages it was sent (history included) and repeats the last one. */
function countingBrain(): void {
  anthropic.setBrain((req) => textReply(`heard ${req.messages.filter((message) => message.role === 'user').length}: ${lastUserText(req) ?? ''}`));
}

useDiscordBot((started) => ({ discord, anthropic, alice, bob } = started));

/** `/ask` in #general; resolves with the thread it opened once the answer is there. */
async function ask(prompt: string): Promise<FakeChannel> {
  const interaction = discord.slash(alice, discord.general, 'ask', { prompt });
  const thread = await discord.waitFor(() => interaction.originalMessageId !== undefined && threadOn(discord, interaction.originalMessageId), 'the /ask thread');
  await waitForBotMessage(discord, thread.id, /^heard /);
  return thread;
}

describe('Discord conversations', () => {
  it('/ask quotes the question, opens a public thread on that reply and answers in the thread', async () => {
    countingBrain();
    const interaction = discord.slash(alice, discord.general, 'ask', { prompt: 'What is the plan for Friday?' });
    const thread = await discord.waitFor(() => interaction.originalMessageId !== undefined && threadOn(discord, interaction.originalMessageId), 'the thread');
    expect(interaction.callbackType).toBe(5);
    expect(interaction.callbackAfterMs).toBeLessThan(3000);
    expect(discord.world.message(interaction.originalMessageId ?? '')?.content).toBe('> What is the plan for Friday?');
    expect(thread).toMatchObject({ parentId: discord.general.id, name: 'What is the plan for Friday?' });
    await waitForBotMessage(discord, thread.id, 'heard 1: What is the plan for Friday?');
    expect(discord.world.typing).toContain(thread.id);
  });

  it('shows a running turn\'s status line with a stop:<turnId> button, and takes it away with the answer', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    anthropic.setBrain(async (req) => {
      if (!lastToolResult(req)) return toolUseReply('load_skill', { skill_id: NOTES_SKILL.id });
      await held;
      return textReply('notes ready');
    });
    const interaction = discord.slash(alice, discord.general, 'ask', { prompt: 'Write the release notes' });
    const thread = await discord.waitFor(() => interaction.originalMessageId !== undefined && threadOn(discord, interaction.originalMessageId), 'the /ask thread');
    const status = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => buttonIds(message).some((id) => id.startsWith('stop:'))), 'the status line');
    expect(status.content).toMatch(/^⏳ /);
    expect(buttonIds(status)).toEqual([expect.stringMatching(/^stop:[\w-]+$/)]);
    release();
    await waitForBotMessage(discord, thread.id, 'notes ready');
    expect(botMessages(discord, thread.id).filter((message) => buttonIds(message).length > 0)).toEqual([]);
  });

  it('opens a thread on an @mention in a channel and ignores channel chatter without one', async () => {
    countingBrain();
    const chatter = discord.say(bob, discord.general, 'lunch anyone?');
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> summarise   the week`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'a thread on the mention');
    expect(thread.name).toBe('summarise the week');
    await waitForBotMessage(discord, thread.id, 'heard 1: summarise the week');
    expect(threadOn(discord, chatter.id)).toBeUndefined();
    expect(botMessages(discord, discord.general.id).some((message) => message.content.includes('lunch'))).toBe(false);
    // Discord's @ menu may insert the bot's managed role instead of its user: that is a mention too.
    const byRole = discord.say(bob, discord.general, `<@&${discord.world.botRoleId}> what changed today?`);
    const roleThread = await discord.waitFor(() => threadOn(discord, byRole.id), 'a thread on the role mention');
    await waitForBotMessage(discord, roleThread.id, 'heard 1: what changed today?');
  });

  it('keeps each DM channel as one chat', async () => {
    countingBrain();
    const first = discord.dm(alice, 'hello in private');
    await waitForBotMessage(discord, first.channelId, 'heard 1: hello in private');
    discord.dm(alice, 'still me');
    await waitForBotMessage(discord, first.channelId, 'heard 2: still me');
    const other = discord.dm(bob, 'hi from bob');
    expect(other.channelId).not.toBe(first.channelId);
    await waitForBotMessage(discord, other.channelId, 'heard 1: hi from bob');
  });

  it('answers /skill in a bot thread through the interaction webhook', async () => {
    countingBrain();
    const thread = await ask('Release time');
    anthropic.setBrain(() => textReply('Features: faster search.'));
    const interaction = discord.slash(alice, thread, 'skill', { id: NOTES_SKILL.id, args: 'v1.2' });
    await discord.waitFor(() => discord.world.message(interaction.originalMessageId ?? '')?.content === 'Features: faster search.', 'the answer in the command reply');
    const original = `/webhooks/${discord.world.applicationId}/${interaction.token}/messages/@original`;
    expect(discord.requests.some((request) => request.method === 'PATCH' && request.path === original && request.status === 200)).toBe(true);
  });

  it('falls back to channel messages once the interaction token no longer works', async () => {
    countingBrain();
    const thread = await ask('Long notes please');
    const long = Array.from({ length: 120 }, (_, index) => `- change number ${index}: improved the widget pipeline`).join('\n');
    const sent: { interaction?: FakeInteraction } = {};
    // The token dies while the model works, as 15 minutes of waiting on an approval would make it.
    anthropic.setBrain(() => {
      if (sent.interaction) discord.expireToken(sent.interaction);
      return textReply(long);
    });
    const interaction = discord.slash(alice, thread, 'skill', { id: NOTES_SKILL.id });
    sent.interaction = interaction;
    const last = await waitForBotMessage(discord, thread.id, /change number 119/);
    expect(last.source).toBe('channel');
    const reply = discord.world.message(interaction.originalMessageId ?? '');
    expect(reply?.content).toMatch(/^- change number 0:/);
    const parts = [reply, ...botMessages(discord, thread.id).filter((message) => message.createdAt >= (reply?.createdAt ?? 0) && message.id !== reply?.id)];
    expect(parts.map((message) => message?.content).join('\n')).toBe(long);
  });

  it('lists skills privately, autocompletes skill ids, and refuses an unknown id privately', async () => {
    const list = discord.slash(alice, discord.general, 'skills');
    const listed = await discord.waitFor(() => {
      const message = discord.world.message(list.originalMessageId ?? '');
      return message !== undefined && messageText(message).includes(NOTES_SKILL.id) && message;
    }, 'the skill list');
    expect(listed.ephemeral).toBe(true);
    // Components V2: a container of text displays, no legacy content.
    expect(listed.flags & (1 << 15)).not.toBe(0);
    expect(listed.content).toBe('');
    expect(messageText(listed)).toContain('### Skills you can use here (2)');
    expect(messageText(listed)).toContain('disk-report');

    const typed = discord.autocomplete(alice, discord.general, 'skill', { id: 'rel' }, 'id');
    await discord.waitFor(() => typed.callbackType === 8, 'autocomplete choices');
    expect(typed.callbackData?.choices).toEqual([{ name: 'release-notes [commits] — Write release notes from a list of commits.', value: NOTES_SKILL.id }]);
    expect(messageText(listed)).toContain('**`release-notes`** [commits] — Write release notes');
    // user-invocable: false: never offered to people, by the list or the autocomplete.
    expect(messageText(listed)).not.toContain('house-style');
    const hidden = discord.autocomplete(alice, discord.general, 'skill', { id: 'house' }, 'id');
    await discord.waitFor(() => hidden.callbackType === 8, 'autocomplete choices');
    expect(hidden.callbackData?.choices).toEqual([]);

    const wrong = discord.slash(alice, discord.general, 'skill', { id: 'relese-notes' });
    const refusal = await discord.waitFor(() => discord.world.message(wrong.originalMessageId ?? ''), 'the refusal');
    expect(refusal.ephemeral).toBe(true);
    expect(refusal.content).toContain('`release-notes`');
  });

  it('splits a long answer into messages of at most 2,000 characters, closing and reopening a cut code block', async () => {
    countingBrain();
    const thread = await ask('Show me the whole script');
    const code = Array.from({ length: 90 }, (_, index) => `echo "step ${index} of the long deployment script"`);
    const answer = ['Here it is:', '```sh', ...code, '```', 'That is all.'].join('\n');
    anthropic.setBrain(() => textReply(answer));
    discord.say(alice, thread, 'the full script please');
    await waitForBotMessage(discord, thread.id, /That is all\.$/);
    const parts = botMessages(discord, thread.id).filter((message) => !message.content.startsWith('heard'));
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2000);
      expect(part.content.split('\n').filter((line) => line.startsWith('```')).length % 2).toBe(0);
    }
    expect(parts[1]?.content.startsWith('```sh\n')).toBe(true);
    for (const line of code) expect(parts.some((part) => part.content.includes(line))).toBe(true);
  });

  it('never lets model text ping anyone: every message carries allowed_mentions that parse nothing', async () => {
    const role = discord.world.ids.next();
    anthropic.setBrain(() => textReply(`@everyone @here look, <@${bob.id}> and <@&${role}>!`));
    const interaction = discord.slash(alice, discord.general, 'ask', { prompt: `ping @everyone and <@${bob.id}>` });
    const thread = await discord.waitFor(() => interaction.originalMessageId !== undefined && threadOn(discord, interaction.originalMessageId), 'the thread');
    const answer = await waitForBotMessage(discord, thread.id, /^@everyone @here look/);
    expect(answer.content).toContain(`<@${bob.id}>`);
    expect(answer.pings).toEqual([]);
    expect(discord.world.message(interaction.originalMessageId ?? '')?.pings).toEqual([]);
    const sent = discord.world.messages.filter((message) => message.author.id === discord.bot.id);
    for (const message of sent) {
      expect(message.allowedMentions?.parse).toEqual([]);
      // Only an approval question may notify someone: its requester.
      expect(message.pings.every((ping) => ping === `user:${alice.id}` && message.history[0]?.includes('Approval needed'))).toBe(true);
    }
  });
});
