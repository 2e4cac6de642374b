// Picking skills of a collection: `--skill NAME` on the command, and a pick on the review card (Slack's multi-select,
// Discord's string select) that closes the card and puts a new one for exactly the picked skills; a yes there
// installs only those, bound to their bytes. Real Slack and Discord launchers against their fakes, a loopback git server.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/approvals/index.ts';
import { combinedHash } from '../../src/install/review.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { botMessages, type DiscordBot, startDiscordBot, threadOn, waitForBotMessage } from '../discord/harness.ts';
import { ALICE, approvalIdOf, BOB, CHANNEL, type SlackBot, startSlackBot } from '../slack/harness.ts';
import { skillMd } from './fixtures.ts';

const CAROL = 'UCAROL';
const TRIO = {
  'skills/alpha/SKILL.md': skillMd('alpha', 'The first of three.', 'Run `scripts/a.sh`.'),
  'skills/alpha/scripts/a.sh': { text: '#!/bin/sh\necho alpha\n', executable: true },
  'skills/beta/SKILL.md': skillMd('beta', 'The second of three.', 'Run `scripts/b.py`.'),
  'skills/beta/scripts/b.py': '#!/usr/bin/env python3\nprint("beta")\n',
  'skills/gamma/SKILL.md': skillMd('gamma', 'The third of three.'),
};

let git: FakeGitServer;
let anthropic: FakeAnthropic;
let dir: string;
const skillDirs: SkillsDir[] = [];

beforeAll(async () => {
  git = await startFakeGitServer();
  anthropic = await startFakeAnthropic();
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-picks-'));
  chmodSync(dir, 0o755);
  git.commit('acme/trio', TRIO);
});
afterAll(async () => {
  await anthropic?.close();
  await git?.close();
  for (const skills of skillDirs) await skills.remove();
  rmSync(dir, { recursive: true, force: true });
});

async function skillsDir(): Promise<SkillsDir> {
  const skills = await makeSkillsDir();
  skillDirs.push(skills);
  return skills;
}

describe('picking skills of a collection in Slack', () => {
  let slack: FakeSlack;
  let bot: SlackBot;
  let world: string;
  beforeAll(async () => {
    slack = await startFakeSlack();
    world = `slack:${slack.info.teamId}:${CHANNEL}`;
    const config = join(dir, 'slack.yaml');
    writeFileSync(config, `worlds:\n  ${world}:\n    installers: [${BOB}]\n`);
    bot = await startSlackBot({ slack, anthropic, skillsRoot: (await skillsDir()).skillsRoot, env: { SKILLBOT_CONFIG: config, INSTALL_GITHUB_URL: git.url, INSTALLED_SKILLS_DIR: join(dir, 'slack-installed') } });
  }, 60_000);
  afterAll(async () => {
    await bot?.stop();
    await slack?.close();
  });

  const cards = (ts: string) => slack.thread(CHANNEL, ts).filter((m) => JSON.stringify(m.blocks ?? []).includes('hitl_'));
  const openCard = (ts: string, not?: string) => slack.waitFor(() => cards(ts).find((m) => approvalIdOf(m) !== not), { what: 'an open review card', timeoutMs: 20_000 });
  const rootOf = (words: RegExp) => slack.waitFor(() => slack.messages.find((m) => m.threadTs === undefined && words.test(m.text)), { what: String(words), timeoutMs: 20_000 });
  const has = (id: string) => bot.app.engine.invocableSkills(world).some((skill) => skill.id === id);
  const pick = (user: string, card: PostedMessage, values: string[]) =>
    bot.sender.select({ user, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs ?? '', actionId: 'install_pick', blockId: `pick:${approvalIdOf(card)}`, values });

  it('a pick on the card of three narrows it to one: the new card shows only that one, and a yes installs only it, bound to its bytes', async () => {
    await bot.sender.command('/skills', 'install github:acme/trio', { channel: CHANNEL, user: ALICE });
    const root = await rootOf(/asked for installing `github:acme\/trio`/);
    const first = await openCard(root.ts);
    const blocks = JSON.stringify(first.blocks);
    expect(blocks).toContain('"install_pick"');
    for (const id of ['alpha', 'beta', 'gamma']) expect(blocks).toContain(`Skill ${id} (content`);

    // A stranger's pick changes nothing and is told why, privately.
    await pick(CAROL, first, ['beta']);
    await slack.waitFor(() => slack.ephemerals.find((e) => e.user === CAROL && e.text.includes('can pick')), { what: 'the note to the stranger' });
    expect(cards(root.ts)).toHaveLength(1);

    // The requester may narrow (it approves nothing): the card closes, a new one asks for beta alone.
    await pick(ALICE, first, ['beta']);
    const second = await openCard(root.ts, approvalIdOf(first));
    await slack.waitFor(() => (JSON.stringify(first.blocks).includes('Replaced') ? true : undefined), { what: 'the first card marked replaced' });
    expect(JSON.stringify(first.blocks)).not.toContain('hitl_');
    const shown = JSON.stringify(second.blocks);
    expect(shown).toContain('Skill beta (content');
    expect(shown).not.toContain('Skill alpha');
    expect(shown).not.toContain('Skill gamma');
    expect(shown).toContain('Picked 1 of the 3 skills this source holds: beta');
    expect(shown).toContain('Not installed: alpha, gamma');

    const secondId = approvalIdOf(second);
    await bot.sender.click({ user: BOB, channel: CHANNEL, messageTs: second.ts, threadTs: second.threadTs ?? '', actionId: 'hitl_yes_once', value: secondId });
    await slack.waitFor(() => slack.thread(CHANNEL, root.ts).find((m) => m.text.startsWith('Installed beta from github:acme/trio at commit ')), { what: 'the install notice', timeoutMs: 20_000 });
    expect(has('beta')).toBe(true);
    expect(has('alpha') || has('gamma')).toBe(false);
    // The yes covered exactly beta's bytes: the approval's hash is of beta alone, at the hash now installed.
    const record = await bot.app.store.get<ApprovalRecord>('approvals', secondId);
    const installed = bot.app.installed.list();
    expect(installed.map((skill) => skill.id)).toEqual(['beta']);
    expect(record?.skillHash).toBe(combinedHash([{ id: 'beta', hash: installed[0]?.contentHash ?? '' }]));
  });

  it('`--skill NAME` asks for only that skill; a name the source lacks is refused with what it holds', async () => {
    await bot.sender.command('/skills', 'install github:acme/trio --skill nope', { channel: CHANNEL, user: ALICE });
    const refused = await rootOf(/installing `github:acme\/trio` \(only `nope`\)/);
    await slack.waitFor(() => slack.thread(CHANNEL, refused.ts).find((m) => m.text.includes('the source holds no skill named nope (it holds: alpha, beta, gamma)')), { what: 'the refusal', timeoutMs: 20_000 });

    await bot.sender.command('/skills', 'install github:acme/trio --skill gamma', { channel: CHANNEL, user: ALICE });
    const root = await rootOf(/installing `github:acme\/trio` \(only `gamma`\)/);
    const card = await openCard(root.ts);
    expect(JSON.stringify(card.blocks)).toContain('Skill gamma (content');
    expect(JSON.stringify(card.blocks)).not.toContain('Skill alpha');
    await bot.sender.click({ user: BOB, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs ?? '', actionId: 'hitl_yes_once', value: approvalIdOf(card) });
    await slack.waitFor(() => slack.thread(CHANNEL, root.ts).find((m) => m.text.startsWith('Installed gamma from')), { what: 'gamma installed', timeoutMs: 20_000 });
    expect(has('alpha')).toBe(false);
  });
});

describe('picking skills of a collection in Discord', () => {
  let discord: FakeDiscord;
  let bot: DiscordBot;
  let alice: FakeUser;
  let bob: FakeUser;
  let world: string;
  beforeAll(async () => {
    discord = await startFakeDiscord();
    alice = discord.addUser('alice');
    bob = discord.addUser('bob');
    world = `discord:${discord.guildId}:${discord.general.id}`;
    const config = join(dir, 'discord.yaml');
    writeFileSync(config, `worlds:\n  ${world}:\n    installers: ['${bob.id}']\n`);
    bot = await startDiscordBot({ discord, anthropic, skillsRoot: (await skillsDir()).skillsRoot, env: { SKILLBOT_CONFIG: config, INSTALL_GITHUB_URL: git.url, INSTALLED_SKILLS_DIR: join(dir, 'discord-installed') } });
  }, 60_000);
  afterAll(async () => {
    await bot?.stop();
    await discord?.close();
  });

  const ids = (message: FakeMessage) => (message.components as Array<{ components?: Array<{ custom_id?: string }> }>).flatMap((row) => (row.components ?? []).map((c) => c.custom_id ?? ''));
  const openCards = (threadId: string) => botMessages(discord, threadId).filter((m) => ids(m).some((id) => id.startsWith('hitl:')));

  it('an installer picks one of three in the select menu: a new card for it alone, and a yes installs only it', async () => {
    const command = discord.slash(alice, discord.general, 'skills', { command: 'install', source: 'github:acme/trio' });
    const reply = await discord.waitFor(() => discord.world.messages.find((m) => m.interactionId === command.id && m.content.includes('asked for installing')), 'the command reply');
    const thread = await discord.waitFor(() => threadOn(discord, reply.id), 'the install thread');
    const first = await discord.waitFor(() => openCards(thread.id)[0], 'the review card', 20_000);
    const select = ids(first).find((id) => id.startsWith('pick:'));
    expect(select).toBeDefined();
    expect(first.content).toContain('Install 3 skills from github:acme/trio');

    discord.select(bob, first, select ?? '', ['alpha']);
    const second = await discord.waitFor(() => openCards(thread.id).find((m) => m.id !== first.id), 'the narrowed card', 20_000);
    expect(second.content).toContain('Install alpha from github:acme/trio');
    expect(second.content).toContain('Skill alpha (content');
    expect(second.content).not.toContain('Skill beta');
    await discord.waitFor(() => (first.content.includes('Replaced') ? true : undefined), 'the first card marked replaced');

    const approval = ids(second).find((id) => id.endsWith(':yes_once')) ?? '';
    discord.click(bob, second, approval);
    await waitForBotMessage(discord, thread.id, /^Installed alpha from github:acme\/trio at commit [0-9a-f]{12}/);
    const here = bot.app.engine.invocableSkills(world).map((s) => s.id);
    expect(here).toContain('alpha');
    expect(here).not.toContain('beta');
    expect(here).not.toContain('gamma');
  });
});
