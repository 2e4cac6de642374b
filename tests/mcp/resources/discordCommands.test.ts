// `@skillbot /mcp attach` and `@skillbot /mcp prompt` in Discord, through the fake Discord: the resource posted in
// the thread as a file, the prompt run as the thread's turn and answered there; `/skill <server>:<path>` reaches the
// turn, which names an id the server does not offer. Our own server on the current SDK, in the sandbox.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../../fakes/anthropic.ts';
import { type FakeDiscord, type FakeUser, startFakeDiscord } from '../../fakes/discord.ts';
import { makeSkillsDir, type SkillsDir } from '../../platforms/skills.ts';
import { botMessages, type DiscordBot, startDiscordBot, threadOn } from '../../discord/harness.ts';
import { ourStdioServerConfig } from '../fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'resourceServer.mjs');

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: DiscordBot;
let alice: FakeUser;

beforeAll(async () => {
  [discord, anthropic, skills] = await Promise.all([startFakeDiscord(), startFakeAnthropic(), makeSkillsDir([])]);
  alice = discord.addUser('alice');
  const config = join(skills.dir, 'skillbot.yaml');
  await writeFile(config, ourStdioServerConfig('notes', SERVER));
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: config } });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
});

describe('/mcp in Discord', () => {
  it('attach posts the resource in the thread as a file', async () => {
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> /mcp attach notes files://team/logo.png`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'a thread on the mention');
    const posted = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.attachments.length > 0), 'the file', 30_000);
    expect(posted.content).toBe('files://team/logo.png from notes');
    expect(posted.attachments.map((file) => [file.filename, file.bytes.length])).toEqual([['logo.png', 13]]);
  }, 60_000);

  it("prompt runs the prompt's messages as the thread's turn", async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req)}`));
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> /mcp prompt notes standup team=web`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'a thread on the mention');
    // The whole answer (an edited message may hold part of it a while first).
    const expected = "heard: (the prompt standup of the MCP server notes)\n\nSummarise yesterday's work of the web team in three bullet points.";
    await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes(expected)), 'the answer', 30_000);
  }, 60_000);

  it('/skill with a server skill id reaches the turn, which says the server does not offer it, naming the id', async () => {
    anthropic.setBrain(() => textReply('That skill could not be run.'));
    const interaction = discord.slash(alice, discord.general, 'skill', { id: 'notes:handbook' });
    const thread = await discord.waitFor(() => interaction.originalMessageId !== undefined && threadOn(discord, interaction.originalMessageId), 'the thread on the command');
    const answer = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes('not offered here')), 'the answer', 30_000);
    expect(answer.content).toContain('The skill "notes:handbook" is not offered here: no MCP server this chat may use lists it.');
  }, 60_000);
});
