// Signing in to an MCP server from Discord, end to end: the thread names the person with a Connect button, only
// their click shows them the link (ephemerally; nothing public carries it), their browser completes it against the
// OAuth-protected MCP server of tests/mcp, and the waiting turn finishes. Another person's click on that button gets
// only a note, or their own link when a turn of theirs waits for the same server.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCustomId } from '../../adapters/discord/mcpConnect.ts';
import type { HttpServer } from '../../src/ops/httpServer.ts';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { freePort } from '../fakes/freePort.ts';
import { listenForSignIns, type OAuthMcp, startOAuthMcp, trackerConfig } from '../mcp/oauthServer.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { botMessages, buttonIds, type DiscordBot, startDiscordBot, threadOn } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let tracker: OAuthMcp;
let bot: DiscordBot;
let http: HttpServer;
let port: number;
let alice: FakeUser;
let bob: FakeUser;

beforeAll(async () => {
  [discord, anthropic, tracker, skills, port] = await Promise.all([startFakeDiscord(), startFakeAnthropic(), startOAuthMcp(), makeSkillsDir([]), freePort()]);
  alice = discord.addUser('alice');
  bob = discord.addUser('bob');
  const config = join(skills.dir, 'skillbot.yaml');
  await writeFile(config, trackerConfig(tracker.url));
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: config, PUBLIC_URL: `http://127.0.0.1:${port}` } });
  http = await listenForSignIns(bot.app.mcp!.signIns, port);
}, 60_000);

afterAll(async () => {
  await http?.close();
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await tracker?.close();
  await skills?.remove();
});

/** A click on a button and the ephemeral answer it gets, once that answer has its text (not "thinking…"). */
async function clickForNote(user: FakeUser, message: FakeMessage, customId: string): Promise<FakeMessage> {
  const interaction = discord.click(user, message, customId);
  return discord.waitFor(() => discord.world.messages.find((posted) => posted.interactionId === interaction.id && posted.content !== ''), `the answer to ${user.username}'s click`);
}

/** The Connect message naming `user` in the thread. */
function connectAsk(threadId: string, user: FakeUser): Promise<FakeMessage> {
  return discord.waitFor(() => botMessages(discord, threadId).find((message) => buttonIds(message).includes(connectCustomId('tracker', user.id))), `the Connect button for ${user.username}`);
}

/**
 * The person's browser: follows the link, signs in as `login`, lands on the bot's callback, whose page shows a code;
 * then `user` confirms the sign-in in the thread (a question only they may answer, naming the same code).
 */
async function completeSignIn(link: string, login: string, threadId: string, user: FakeUser): Promise<void> {
  const authorize = await fetch(`${link}&login=${login}`, { redirect: 'manual' });
  const callback = authorize.headers.get('location') ?? '';
  expect(callback.startsWith(`http://127.0.0.1:${port}/mcp/oauth/callback?`)).toBe(true);
  const page = await fetch(callback);
  expect(page.status).toBe(200);
  const code = /(\d{3}-\d{3})/.exec(await page.text())?.[1] ?? 'no code';
  const question = await discord.waitFor(
    () => botMessages(discord, threadId).find((message) => message.history.some((text) => text.includes(`the code is ${code}`)) && buttonIds(message).some((id) => id.endsWith(':yes_once'))),
    `the sign-in confirmation for ${user.username}`,
  );
  discord.click(user, question, buttonIds(question).find((id) => id.endsWith(':yes_once'))!);
}

const linkIn = (text: string): string => /https?:\/\/\S+\/authorize\?\S+/.exec(text)?.[0] ?? '';

/** Everything anyone but the clicker sees: the bot's messages that are not ephemeral, in every version. */
const publicTexts = (): string[] => discord.world.messages.filter((message) => !message.ephemeral).flatMap((message) => message.history);

describe('Discord: signing in to an MCP server', () => {
  it("names A in the thread with a Connect button; only A's click shows the link, ephemerally; A signs in and the waiting turn finishes", async () => {
    anthropic.setBrain(stepsBrain([toolUseReply('mcp__tracker__connect', {}, { text: 'Connecting.' }), (req) => textReply(`done: ${lastToolResult(req)?.content}`)], []));
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> use the tracker`);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    const ask = await connectAsk(thread.id, alice);
    expect(ask.content).toBe(`🔑 <@${alice.id}>, **tracker** needs you to connect your account before Claude can use it for you. Click below: the sign-in link is shown to you alone.`);
    expect(ask.pings).toEqual([`user:${alice.id}`]);
    expect(ask.content).not.toContain('http');

    // Bob has no turn waiting on tracker: he is told whose button it is, and gets no link.
    const bobs = await clickForNote(bob, ask, connectCustomId('tracker', alice.id));
    expect(bobs.ephemeral).toBe(true);
    expect(bobs.content).toBe(`This sign-in is for <@${alice.id}>: each person connects their own tracker account. When Claude needs tracker for you, you get a button of your own.`);

    const alices = await clickForNote(alice, ask, connectCustomId('tracker', alice.id));
    expect(alices.ephemeral).toBe(true);
    expect(alices.content).toMatch(/^To let Claude use tracker for you, connect your account: http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+\nThe link is yours alone\./);
    const link = linkIn(alices.content);
    expect(publicTexts().some((text) => text.includes('/authorize') || text.includes(link))).toBe(false);

    await completeSignIn(link, 'alice', thread.id, alice);
    const answer = await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes('done: Connected to tracker.')), 'the finished turn');
    expect(answer.content).toContain('mcp__tracker__whoami');
    // Clicked again once connected: no new link, just the state.
    expect((await clickForNote(alice, ask, connectCustomId('tracker', alice.id))).content).toBe('You are connected to tracker.');

    const seen: string[] = [];
    anthropic.setBrain(stepsBrain([toolUseReply('mcp__tracker__whoami', {}, { text: 'Checking.' }), textReply('checked')], seen));
    discord.say(alice, thread, 'who am I there?');
    await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes('checked')), 'the second answer');
    expect(seen[0]).toBe('account: alice');
    expect(publicTexts().some((text) => text.includes('/authorize'))).toBe(false);
  }, 60_000);

  it("gives B B's own link from A's button while a turn of B's waits for the same server; B's call uses B's account", async () => {
    const seen: string[] = [];
    anthropic.setBrain(stepsBrain([toolUseReply('mcp__tracker__whoami', {}, { text: 'Checking.' }), textReply('checked for bob')], seen));
    const thread = discord.threads()[0]!;
    const alicesAsk = await connectAsk(thread.id, alice);
    discord.say(bob, thread, 'and me?');
    const bobsAsk = await connectAsk(thread.id, bob);
    expect(bobsAsk.pings).toEqual([`user:${bob.id}`]);
    const note = await clickForNote(bob, alicesAsk, connectCustomId('tracker', alice.id));
    expect(note.ephemeral).toBe(true);
    expect(note.content).toMatch(new RegExp(`^This button is for <@${alice.id}>, but Claude is waiting on tracker for you too\\. To let Claude use tracker for you, connect your account: `));
    await completeSignIn(linkIn(note.content), 'bob', thread.id, bob);
    await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes('checked for bob')), "B's answer");
    expect(seen[0]).toBe('account: bob');
    expect(publicTexts().some((text) => text.includes('/authorize'))).toBe(false);
  }, 60_000);
});
