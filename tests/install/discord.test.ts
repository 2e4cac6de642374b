// Installing skills from Discord's `/skills` (command, source, id options): the real discord.js client against the
// Discord fake, a git server of our own on loopback. The review card opens in a thread; only installers answer.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { approvalIn, botMessages, type DiscordBot, startDiscordBot, threadOn, waitForBotMessage } from '../discord/harness.ts';
import { friendlyCollection, installFor, makeZip, skillMd } from './fixtures.ts';

let git: FakeGitServer;
let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: DiscordBot;
let dir: string;
let alice: FakeUser;
let bob: FakeUser;
let world: string;

beforeAll(async () => {
  git = await startFakeGitServer();
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  alice = discord.addUser('alice');
  bob = discord.addUser('bob');
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-discord-'));
  chmodSync(dir, 0o755);
  world = `discord:${discord.guildId}:${discord.general.id}`;
  writeFileSync(join(dir, 'config.yaml'), `worlds:\n  ${world}:\n    installers: ['${bob.id}']\n`);
  git.commit('acme/tools', friendlyCollection(join(dir, 'ran')));
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: join(dir, 'config.yaml'), INSTALL_GITHUB_URL: git.url } });
}, 60_000);
afterAll(async () => {
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
  await git?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('installing skills from Discord', () => {
  it('opens the review in a thread; the requester cannot approve it; an installer can; then it is listed and removable', async () => {
    const command = discord.slash(alice, discord.general, 'skills', { command: 'install', source: 'github:acme/tools' });
    const reply = await discord.waitFor(() => discord.world.messages.find((m) => m.interactionId === command.id && m.content.includes('asked for installing')), 'the command reply');
    const thread = await discord.waitFor(() => threadOn(discord, reply.id), 'the install thread');
    const card = await discord.waitFor(() => approvalIn(discord, thread.id), 'the review card', 20_000);
    expect(card.content).toMatch(/Install 2 skills from github:acme\/tools/);
    expect(card.content).toContain("Only this channel's installers can answer");
    const id = /hitl:([^:]+):/.exec(JSON.stringify(card.components))?.[1] ?? '';

    const denied = discord.click(alice, card, `hitl:${id}:yes_once`);
    await discord.waitFor(() => discord.world.messages.find((m) => m.interactionId === denied.id && m.ephemeral && m.content.includes('installers')), 'the private refusal');
    expect(bot.app.engine.invocableSkills(world).some((s) => s.id === 'greeter')).toBe(false);

    discord.click(bob, card, `hitl:${id}:yes_once`);
    await waitForBotMessage(discord, thread.id, /^Installed csv-peek, greeter from github:acme\/tools at commit [0-9a-f]{12}/);
    expect(bot.app.engine.invocableSkills(world).map((s) => s.id)).toEqual(expect.arrayContaining(['csv-peek', 'greeter']));

    const listed = discord.slash(alice, discord.general, 'skills', { command: 'installed' });
    await discord.waitFor(() => discord.world.messages.find((m) => m.interactionId === listed.id && m.ephemeral && m.content.includes('greeter: github:acme/tools at commit')), 'the installed list');

    const refused = discord.slash(alice, discord.general, 'skills', { command: 'remove', id: 'greeter' });
    await discord.waitFor(() => discord.world.messages.find((m) => m.interactionId === refused.id && m.ephemeral && m.content.includes("Only this channel's installers")), 'the refused remove');
    discord.slash(bob, discord.general, 'skills', { command: 'remove', id: 'greeter' });
    await discord.waitFor(() => !bot.app.engine.invocableSkills(world).some((s) => s.id === 'greeter'), 'greeter removed');
    expect(botMessages(discord, thread.id).length).toBeGreaterThan(0);
  });

  it('a .skill file attached to "@skillbot skills install" installs the same way, in the thread opened on it', async () => {
    const zip = makeZip({ 'zipped/SKILL.md': skillMd('zipped', 'Arrived as a file.'), 'zipped/scripts/z.sh': '#!/bin/sh\necho z\n' });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> skills install`, [{ name: 'zipped.skill', contentType: 'application/zip', bytes: zip }]);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    const card = await discord.waitFor(() => approvalIn(discord, thread.id), 'the review card', 20_000);
    expect(card.content + JSON.stringify(card.attachments)).toMatch(/zipped\.skill/);
    const id = /hitl:([^:]+):/.exec(JSON.stringify(card.components))?.[1] ?? '';
    discord.click(bob, card, `hitl:${id}:yes_once`);
    await waitForBotMessage(discord, thread.id, /^Installed zipped from zipped\.skill at sha256 [0-9a-f]{12}/);
    expect(bot.app.engine.invocableSkills(world).map((s) => s.id)).toContain('zipped');
  });

  it('a skill installed for another channel is not offered here: not by /skill autocomplete, nor by /skills', async () => {
    git.commit('acme/far', { 'SKILL.md': skillMd('far-away', 'Installed for another channel only.') });
    const other = `discord:${discord.guildId}:999000000000000001`;
    await installFor(bot.app, 'github:acme/far', other);
    expect(bot.app.engine.invocableSkills(other).map((s) => s.id)).toContain('far-away');
    const typed = discord.autocomplete(alice, discord.general, 'skill', { id: 'far' }, 'id');
    await discord.waitFor(() => typed.callbackType === 8, 'autocomplete choices');
    expect(typed.callbackData?.choices).toEqual([]);
    const list = discord.slash(alice, discord.general, 'skills');
    const listed = await discord.waitFor(() => discord.world.message(list.originalMessageId ?? ''), 'the skill list');
    expect(JSON.stringify(listed)).not.toContain('far-away');
  });
});
