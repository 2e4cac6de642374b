// Discord beyond the platform contract's stop scenarios (tests/platforms/contractStop.ts): "@bot stop" in a
// channel, where no turn can run, and /new in a DM.
import { describe, expect, it } from 'vitest';
import { NEW_CONVERSATION_TEXT } from '../../adapters/discord/messages.ts';
import { NOTHING_RUNNING_TEXT } from '../../adapters/discord/stop.ts';
import { type FakeAnthropic, lastUserText, textReply } from '../fakes/anthropic.ts';
import type { FakeDiscord, FakeUser } from '../fakes/discord.ts';
import { threadOn, useDiscordBot, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let alice: FakeUser;
let bob: FakeUser;

useDiscordBot((started) => ({ discord, anthropic, alice, bob } = started));

describe('stopping a turn in Discord', () => {
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
