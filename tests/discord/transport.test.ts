// The connection end to end: gateway handshake, command registration, reconnects, start failures, shutdown (a
// repeated delivery is the platform contract's, tests/platforms/contract.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { type Brain, type FakeAnthropic, lastUserText, textReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeUser, INTENTS, startFakeDiscord } from '../fakes/discord.ts';
import type { SkillsDir } from '../platforms/skills.ts';
import { type DiscordBot, startDiscordBot, threadOn, useDiscordBot, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: DiscordBot;
let alice: FakeUser;
const cleanups: Array<() => Promise<void>> = [];

/** The model says how many user messages it was sent (history included) and repeats the last one. */
const countingBrain: Brain = (req) => textReply(`heard ${req.messages.filter((message) => message.role === 'user').length}: ${lastUserText(req) ?? ''}`);
useDiscordBot((started) => ({ discord, anthropic, skills, bot, alice } = started), { anthropic: { brain: countingBrain } });
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const commandsPut = (fake: FakeDiscord) => fake.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/commands'));

describe('Discord transport', () => {
  it('speaks plain JSON on the gateway with the four intents it needs, and keeps the heartbeat going', async () => {
    expect(discord.gateway.queries[0]).toBe('v=10&encoding=json');
    expect(discord.gateway.intents).toBe(INTENTS.Guilds | INTENTS.GuildMessages | INTENTS.DirectMessages | INTENTS.MessageContent);
    await discord.waitFor(() => discord.gateway.heartbeats >= 2, 'two heartbeats');
    // Heartbeats were acknowledged: the client never dropped the connection as a zombie.
    expect(discord.gateway.connections).toBe(1);
    expect(bot.running.ready()).toBe(true);
  });

  it('registers /ask, /skill (id autocompletes) and /skills to DISCORD_GUILD_ID, once, at start', () => {
    const puts = commandsPut(discord);
    expect(puts).toHaveLength(1);
    expect(puts[0]?.path).toBe(`/applications/${discord.world.applicationId}/guilds/${discord.guildId}/commands`);
    const commands = puts[0]?.body as Array<{ name: string; options?: Array<{ name: string; autocomplete?: boolean }> }>;
    expect(commands.map((command) => command.name)).toEqual(['ask', 'skill', 'skills', 'routine', 'hook', 'usage']);
    expect(commands[1]?.options?.find((option) => option.name === 'id')?.autocomplete).toBe(true);
  });

  it('registers the commands globally without DISCORD_GUILD_ID', async () => {
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const global = await startDiscordBot({ discord: fake, anthropic, skillsRoot: skills.skillsRoot, guildCommands: false });
    cleanups.push(() => global.stop());
    expect(commandsPut(fake).map((request) => request.path)).toEqual([`/applications/${fake.world.applicationId}/commands`]);
  });

  it('resumes after the gateway drops, receives what was sent meanwhile, and the chat goes on', async () => {
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> remember the word teal`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    await waitForBotMessage(discord, thread.id, 'heard 1: remember the word teal');

    discord.dropConnection();
    // Sent while the bot is disconnected: Discord keeps it for the session and replays it on RESUME.
    discord.say(alice, thread, 'what was the word?');
    await waitForBotMessage(discord, thread.id, 'heard 2: what was the word?');
    expect(discord.gateway.resumes).toBe(1);
    expect(discord.gateway.identifies).toBe(1);
    await discord.waitFor(() => bot.running.ready(), 'ready again');

    discord.say(alice, thread, 'thanks');
    await waitForBotMessage(discord, thread.id, 'heard 3: thanks');
  });

  it('refuses to start when the Message Content intent is not enabled, and says how to fix it', async () => {
    const fake = await startFakeDiscord({ messageContentAllowed: false });
    cleanups.push(() => fake.close());
    await expect(startDiscordBot({ discord: fake, anthropic, skillsRoot: skills.skillsRoot })).rejects.toThrow(/Message Content Intent/);
  });

  it('refuses a wrong token with a message that names DISCORD_TOKEN', async () => {
    const fake = await startFakeDiscord({ token: 'the-real-token' });
    cleanups.push(() => fake.close());
    await expect(startDiscordBot({ discord: { ...fake, token: 'a-wrong-token', url: fake.url, guildId: fake.guildId }, anthropic, skillsRoot: skills.skillsRoot })).rejects.toThrow(/DISCORD_TOKEN/);
  });

  it('shuts down cleanly: the gateway is closed and no timer is left behind', async () => {
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    const short = await startDiscordBot({ discord: fake, anthropic, skillsRoot: skills.skillsRoot });
    const dm = fake.dm(fake.addUser('erin'), 'hello');
    await waitForBotMessage(fake, dm.channelId, /hello/);
    await short.stop();
    expect(fake.connected).toBe(false);
    expect(short.running.ready()).toBe(false);
    await fake.waitFor(() => timers() <= before, 'the timers to be gone', 5000);
  });
});
