// Who may use the bot in Discord (issue 34): a member of a listed role is answered, anyone else told privately
// (a DM) with nothing reaching the model; a refused approver's click does nothing; commands obey it; a listed
// bot starts turns up to its rate, an unlisted one never. Through the Discord and Anthropic fakes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { makeSkillsDir, reportBrain, type SkillsDir } from '../platforms/skills.ts';
import { approvalIn, botMessages, buttonIds, type DiscordBot, startDiscordBot, threadOn, waitForBotMessage } from '../discord/harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: DiscordBot;
let folder: string;
let alice: FakeUser;
let bob: FakeUser;
let carol: FakeUser;
let deploybot: FakeUser;
let strangerbot: FakeUser;

beforeAll(async () => {
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  folder = await mkdtemp(join(tmpdir(), 'skillbot-discord-access-'));
  const ops = discord.addRole();
  alice = discord.addUser('alice', { roles: [ops] });
  bob = discord.addUser('bob');
  carol = discord.addUser('carol');
  deploybot = discord.addUser('deploybot', { bot: true });
  strangerbot = discord.addUser('strangerbot', { bot: true });
  const config = `
worlds:
  discord:${discord.guildId}:${discord.general.id}:
    access: { groups: ["${ops}"] }
    approvers: ["${carol.id}"]
    bots: { allow: ["${deploybot.id}"], maxTurnsPerMinute: 2, cooldownS: 60 }
    limits: { turnsPerPersonPerHour: 3 }
`;
  await writeFile(join(folder, 'skillbot.yaml'), config);
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: join(folder, 'skillbot.yaml') } });
});

afterAll(async () => {
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
  await rm(folder, { recursive: true, force: true });
});

const mention = (text: string) => `<@${discord.bot.id}> ${text}`;
const dmsTo = (user: FakeUser) => botMessages(discord, discord.world.dmWith(user).id);

describe('who may use the bot in Discord', () => {
  it('a member of a listed role is answered; someone without it is told by DM, and the model never sees it', async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
    const asked = discord.say(alice, discord.general, mention('role question'));
    const thread = await discord.waitFor(() => threadOn(discord, asked.id), 'the thread');
    await waitForBotMessage(discord, thread.id, 'heard: role question');

    const refused = discord.say(bob, discord.general, mention('bob secret question'));
    const note = await discord.waitFor(() => dmsTo(bob)[0], 'the DM to bob');
    expect(note.content).toContain('cannot use skillbot here');
    expect(note.content).toContain(`<@${carol.id}>`);
    await delay(200);
    expect(threadOn(discord, refused.id)).toBeUndefined();
    expect(anthropic.requests.map((request) => request.rawBody).join('\n')).not.toContain('bob secret question');
  });

  it("a refused approver's click does nothing", async () => {
    reportBrain(anthropic);
    const asked = discord.say(alice, discord.general, mention('how full is the disk?'));
    const thread = await discord.waitFor(() => threadOn(discord, asked.id), 'the thread');
    const question = await discord.waitFor(() => approvalIn(discord, thread.id), 'the approval question');
    const [yes, , no] = buttonIds(question);
    const click = discord.click(carol, question, yes ?? '');
    const note = await discord.waitFor(() => discord.world.messages.find((message) => message.interactionId === click.id && message.ephemeral), 'the ephemeral note');
    expect(note.content).toContain('cannot use skillbot here');
    await delay(200);
    expect(buttonIds(question)).toContain(yes);
    discord.click(alice, question, no ?? '');
    await waitForBotMessage(discord, thread.id, 'the script did not run');
  });

  it('commands obey it: /usage answers a member their figures and a refused person only the refusal', async () => {
    const refused = discord.slash(bob, discord.general, 'usage');
    const note = await discord.waitFor(() => discord.world.messages.find((message) => message.interactionId === refused.id && message.ephemeral), 'the refusal');
    expect(note.content).toContain('cannot use skillbot here');
    const own = discord.slash(alice, discord.general, 'usage');
    const figures = await discord.waitFor(() => discord.world.messages.find((message) => message.interactionId === own.id && message.ephemeral), 'the figures');
    expect(figures.content).toContain('questions in the last 60 min: 2 (limit 3)');
  });

  it('a person at their limit is told by DM (a message) or ephemerally (a command), and nothing starts', async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
    const third = discord.say(alice, discord.general, mention('third question'));
    await waitForBotMessage(discord, (await discord.waitFor(() => threadOn(discord, third.id), 'the thread')).id, 'heard: third question');
    const requests = anthropic.requests.length;
    const before = dmsTo(alice).length;
    const fourth = discord.say(alice, discord.general, mention('fourth question'));
    const note = await discord.waitFor(() => dmsTo(alice)[before], 'the DM to alice');
    expect(note.content).toMatch(/you can ask again in \d+ min/);
    const command = discord.slash(alice, discord.general, 'ask', { prompt: 'fifth question' });
    const ephemeral = await discord.waitFor(() => discord.world.messages.find((message) => message.interactionId === command.id && message.ephemeral), 'the ephemeral note');
    expect(ephemeral.content).toMatch(/you can ask again in \d+ min/);
    await delay(200);
    expect(threadOn(discord, fourth.id)).toBeUndefined();
    expect(anthropic.requests.length).toBe(requests);
  });
});

describe('bots in Discord', () => {
  it('an unlisted bot never starts a turn; a listed one up to its rate, then one cooldown message', async () => {
    anthropic.setBrain((req) => textReply(`bot heard: ${lastUserText(req) ?? ''}`));
    const requests = anthropic.requests.length;
    const stranger = discord.say(strangerbot, discord.general, mention('stranger asks'));
    await delay(300);
    expect(threadOn(discord, stranger.id)).toBeUndefined();
    expect(anthropic.requests.length).toBe(requests);

    for (let round = 1; round <= 4; round++) discord.say(deploybot, discord.general, mention(`ping ${round}`));
    await discord.waitFor(() => botMessages(discord, discord.general.id).find((message) => message.content.includes('not answering bots')), 'the cooldown');
    await discord.waitFor(() => anthropic.requests.length - requests >= 2, 'two turns');
    await delay(300);
    expect(anthropic.requests.length - requests).toBe(2);
    expect(botMessages(discord, discord.general.id).filter((message) => message.content.includes('not answering bots'))).toHaveLength(1);
  });
});
