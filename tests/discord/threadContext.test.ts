// What the bot reads when mentioned in a Discord thread it was not part of, or asked about "the above" in a channel.
import { beforeAll, describe, expect, it } from 'vitest';
import { type BrainRequest, type FakeAnthropic, textReply } from '../fakes/anthropic.ts';
import type { FakeDiscord, FakeUser } from '../fakes/discord.ts';
import { threadOn, useDiscordBot, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let alice: FakeUser;
let bob: FakeUser;
let ciBot: FakeUser;
let requests: BrainRequest[] = [];

useDiscordBot((started) => ({ discord, anthropic, alice, bob } = started));
beforeAll(() => {
  ciBot = discord.addUser('ci-bot');
  ciBot.bot = true;
});

function recordingBrain(answer: string): void {
  requests = [];
  anthropic.setBrain((req) => {
    requests.push(req);
    return textReply(answer);
  });
}

const lastUserMessage = (req: BrainRequest | undefined) => JSON.stringify(req?.messages.at(-1)?.content ?? '');

describe('conversation context in Discord', () => {
  it('a mention in a thread it was not part of reads the thread before it, people and bots attributed', async () => {
    recordingBrain('caught up');
    const thread = discord.openThread(bob, 'launch');
    discord.world.addMessage({ channelId: thread.id, author: bob, content: 'Launch moves to Friday.', source: 'user' });
    discord.world.addMessage({ channelId: thread.id, author: ciBot, content: 'Build 12 is green.', source: 'user' });
    discord.say(alice, thread, `<@${discord.bot.id}> what did we decide?`);
    await waitForBotMessage(discord, thread.id, 'caught up');
    const seen = lastUserMessage(requests[0]);
    expect(seen).toContain('] bob: Launch moves to Friday.');
    expect(seen).toContain('] ci-bot (a bot): Build 12 is green.');
    expect(seen).toMatch(/\[\d{4}-\d\d-\d\d \d\d:\d\d UTC\] bob/);
    expect(seen.indexOf('channel_context')).toBeLessThan(seen.indexOf('what did we decide?'));
  });

  it('a channel mention about "the above" reads the channel; another mention does not', async () => {
    recordingBrain('read it');
    discord.world.addMessage({ channelId: discord.general.id, author: bob, content: 'The office is closed on Monday.', source: 'user' });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> summarise the above`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    await waitForBotMessage(discord, thread.id, 'read it');
    expect(lastUserMessage(requests[0])).toContain('bob: The office is closed on Monday.');

    recordingBrain('plain');
    const other = discord.say(alice, discord.general, `<@${discord.bot.id}> what is 2 + 2?`);
    const otherThread = await discord.waitFor(() => threadOn(discord, other.id), 'the other thread');
    await waitForBotMessage(discord, otherThread.id, 'plain');
    expect(lastUserMessage(requests[0])).not.toContain('channel_context');
  });
});
