// The connection end to end: gateway handshake, command registration, reconnects, repeats, start failures, shutdown.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeUser, INTENTS, startFakeDiscord } from '../fakes/discord.ts';
import { botMessages, type DiscordBot, makeSkillsDir, startDiscordBot, threadOn, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let bot: DiscordBot;
let alice: FakeUser;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  alice = discord.addUser('alice');
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot });
  anthropic.setBrain((req) => textReply(`heard ${req.messages.filter((message) => message.role === 'user').length}: ${lastUserText(req) ?? ''}`));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
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
    expect(commands.map((command) => command.name)).toEqual(['ask', 'skill', 'skills']);
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

  it('answers a message Discord delivers twice only once', async () => {
    const dm = discord.dm(alice, 'only once please');
    discord.redeliver(dm);
    await waitForBotMessage(discord, dm.channelId, /: only once please$/);
    discord.dm(alice, 'next');
    await waitForBotMessage(discord, dm.channelId, /: next$/);
    expect(botMessages(discord, dm.channelId).filter((message) => message.content.endsWith('only once please'))).toHaveLength(1);
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
