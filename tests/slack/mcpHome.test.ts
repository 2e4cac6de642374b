// Slack's App Home lists the MCP servers a person signed in to, each with Disconnect: A signs in (the link comes
// ephemerally), sees the server in App Home, clicks Disconnect; A's tokens are gone from the store, and A's next
// call asks A to connect again. B's sign-in stays.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServer } from '../../src/ops/httpServer.ts';
import { type FakeAnthropic, startFakeAnthropic, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { freePort } from '../fakes/freePort.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { listenForSignIns, type OAuthMcp, startOAuthMcp, trackerConfig } from '../mcp/oauthServer.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, BOB, CHANNEL, DM, type SlackBot, startSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let tracker: OAuthMcp;
let bot: SlackBot;
let http: HttpServer;
let port: number;

beforeAll(async () => {
  [slack, anthropic, tracker, skills, port] = await Promise.all([startFakeSlack(), startFakeAnthropic(), startOAuthMcp(), makeSkillsDir([]), freePort()]);
  const config = join(skills.dir, 'skillbot.yaml');
  await writeFile(config, trackerConfig(tracker.url));
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: `sqlite://${join(skills.dir, 'state.sqlite')}`, env: { SKILLBOT_CONFIG: config, PUBLIC_URL: `http://127.0.0.1:${port}` } });
  http = await listenForSignIns(bot.app.mcp!.signIns, port);
}, 60_000);

afterAll(async () => {
  await http?.close();
  await bot?.stop();
  await slack?.close();
  await anthropic?.close();
  await tracker?.close();
  await skills?.remove();
});

const seenLinks = new Set<unknown>();

/** Waits for the person's next private sign-in link (chat.postEphemeral) and returns it. */
async function nextLink(user: string): Promise<string> {
  const note = await slack.waitFor(() => slack.ephemerals.find((entry) => !seenLinks.has(entry) && entry.user === user && entry.text.includes('connect your account')), { what: `a sign-in link for ${user}` });
  seenLinks.add(note);
  // Slack text escapes `&` (the person's client shows it as `&`).
  return (/https?:\/\/\S+\/authorize\?\S+/.exec(note.text)?.[0] ?? '').replaceAll('&amp;', '&');
}

/** The browser signs in as `login`; the page shows a code, and `user` confirms that code on the thread's question. */
async function completeSignIn(link: string, login: string, user: string, threadTs: string): Promise<void> {
  const authorize = await fetch(`${link}&login=${login}`, { redirect: 'manual' });
  const page = await fetch(authorize.headers.get('location') ?? '');
  expect(page.status).toBe(200);
  const code = /(\d{3}-\d{3})/.exec(await page.text())?.[1] ?? 'no code';
  const question = await slack.waitFor(
    () => slack.thread(CHANNEL, threadTs).find((message) => JSON.stringify(message.blocks ?? []).includes(`the code is ${code}`) && JSON.stringify(message.blocks ?? []).includes('hitl_yes_once')),
    { what: `the sign-in confirmation for ${user}` },
  );
  await bot.sender.click({ user, channel: CHANNEL, messageTs: question.ts, threadTs, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
}

/** A mention in the channel that makes the model call whoami; resolves with the tool's result once answered. */
async function whoami(user: string, signInAs?: string): Promise<string> {
  const seen: string[] = [];
  anthropic.setBrain(stepsBrain([toolUseReply('mcp__tracker__whoami', {}, { text: 'Checking.' }), textReply(`checked ${user}`)], seen));
  const ts = bot.sender.nextTs();
  await bot.sender.mention({ channel: CHANNEL, user, ts, text: `<@${slack.info.botUserId}> who am I in the tracker?` });
  if (signInAs !== undefined) await completeSignIn(await nextLink(user), signInAs, user, ts);
  await waitForReply(slack, CHANNEL, ts, new RegExp(`checked ${user}`));
  return seen[0] ?? '';
}

async function openHome(user: string): Promise<string> {
  const before = slack.views.length;
  await bot.sender.event({ type: 'app_home_opened', user, channel: DM, tab: 'home', event_ts: bot.sender.nextTs() });
  return JSON.stringify((await slack.waitFor(() => slack.views[before], { what: 'the Home tab' })).view.blocks);
}

describe('Slack App Home: connected MCP accounts', () => {
  it("lists A's connected server with Disconnect; a click removes A's tokens, and A's next call asks A to connect again", async () => {
    // Nobody signed in yet: the connect tool signs A in.
    anthropic.setBrain(stepsBrain([toolUseReply('mcp__tracker__connect', {}, { text: 'Connecting.' }), textReply('connected')], []));
    const first = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts: first, text: `<@${slack.info.botUserId}> connect the tracker` });
    await completeSignIn(await nextLink(ALICE), 'alice', ALICE, first);
    await waitForReply(slack, CHANNEL, first, /connected/);
    expect(await whoami(BOB, 'bob')).toBe('account: bob');

    const home = await openHome(ALICE);
    expect(home).toContain('Your connected accounts');
    expect(home).toContain('*tracker*: Claude calls its tools with your account');
    expect(home).toContain('"action_id":"home_mcp_disconnect"');

    const row = (user: string) => bot.app.store.get('mcp', `oauth:person:tracker:${createHash('sha256').update(user).digest('hex').slice(0, 32)}`);
    expect(await row(ALICE)).toBeDefined();
    const before = slack.views.length;
    await bot.sender.homeClick({ user: ALICE, actionId: 'home_mcp_disconnect', value: 'tracker' });
    const after = JSON.stringify((await slack.waitFor(() => slack.views[before], { what: 'the Home tab again' })).view.blocks);
    expect(after).not.toContain('home_mcp_disconnect');
    expect(after).toContain('Not connected: tracker.');
    expect(await row(ALICE)).toBeUndefined();
    expect(await bot.app.mcp!.signIns.connected('tracker', ALICE)).toBe(false);
    // B's sign-in is B's: A's click took nothing of it.
    expect(await bot.app.mcp!.signIns.connected('tracker', BOB)).toBe(true);

    // A's next call: a new private link, and A's own account once signed in again.
    expect(await whoami(ALICE, 'alice')).toBe('account: alice');
    expect(await whoami(BOB)).toBe('account: bob');
  }, 60_000);
});
