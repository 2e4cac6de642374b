// Per-person sign-in end to end, against an OAuth-protected MCP server of our own on loopback: the link reaches
// only the person whose turn needs it, their browser completes it, the waiting turn goes on; another person signs
// in with their own account; a restart keeps the sign-in; the store holds it encrypted; expiry and revocation.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { TokenVault } from '../../src/mcp/tokenVault.ts';
import type { HttpServer } from '../../src/ops/httpServer.ts';
import type { ApprovalOption, ApprovalRecord } from '../../src/approvals/index.ts';
import { type FakeAnthropic, startFakeAnthropic, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { freePort } from '../fakes/freePort.ts';
import { type Harness, startHarness } from '../agent/harness.ts';
import { listenForSignIns, type OAuthMcp, startOAuthMcp } from './oauthServer.ts';

let tracker: OAuthMcp;
let fake: FakeAnthropic;
let dir: string;
let port: number;
let bot: Harness;
let http: HttpServer;
const notes: Array<{ userId: string; text: string }> = [];
/** Sign-in confirmations asked in the chat, and how the test answers each (by whom, what). */
const confirmations: ApprovalRecord[] = [];
let confirmAs: (record: ApprovalRecord) => { option: ApprovalOption; by: string } | undefined = (record) => ({ option: 'yes_once', by: record.requesterId });

async function startBot(): Promise<void> {
  bot = await startHarness({
    skills: [],
    fake,
    dir,
    store: `sqlite://${join(dir, 'state.sqlite')}`,
    privateNotes: notes,
    tweak: (config) => {
      config.mcp.servers = resolveMcpServers({ tracker: { type: 'http', url: tracker.url } }, {});
      config.mcp.publicUrl = `http://127.0.0.1:${port}`;
      config.defaults.mcp = ['tracker'];
      config.defaults.mcpNoApproval = ['mcp__tracker__*'];
      config.defaults.approvalTimeoutMs = 20_000;
    },
  });
  http = await listenForSignIns(bot.app.mcp!.signIns, port);
  bot.app.approvals.addPresenter('terminal', {
    async present(record) {
      confirmations.push(record);
      const answer = confirmAs(record);
      if (answer !== undefined) setTimeout(() => void bot.app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: answer.option, userId: answer.by }), 1);
      return undefined;
    },
    async resolved() {},
    async tellPrivately() {},
  });
}

async function stopBot(): Promise<void> {
  await http.close();
  await bot.app.close();
}

/** The person's browser: opens the private link, signs in as `login`, follows the redirect to the bot. */
async function signInAs(userId: string, login: string): Promise<string> {
  let note: { userId: string; text: string } | undefined;
  for (let i = 0; i < 500 && note === undefined; i++) {
    note = notes.find((entry) => entry.userId === userId);
    if (note === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(note, `no private note for ${userId}`).toBeDefined();
  notes.splice(notes.indexOf(note!), 1);
  const link = /https?:\/\/\S+/.exec(note!.text)![0];
  const authorize = await fetch(`${link}&login=${login}`, { redirect: 'manual' });
  const callback = authorize.headers.get('location')!;
  expect(callback.startsWith(`http://127.0.0.1:${port}/mcp/oauth/callback?`)).toBe(true);
  const page = await fetch(callback);
  expect(page.status).toBe(200);
  lastPage = await page.text();
  return note!.text;
}

let lastPage = '';

beforeAll(async () => {
  tracker = await startOAuthMcp();
  fake = await startFakeAnthropic();
  dir = await mkdtemp(join(tmpdir(), 'skillbot-signin-'));
  await chmod(dir, 0o755);
  port = await freePort();
  await startBot();
}, 60_000);
afterAll(async () => {
  await stopBot();
  await fake?.close();
  await tracker?.close();
  await rm(dir, { recursive: true, force: true });
});

function whoamiBrain(seen: string[], tools: string[][] = []) {
  fake.setBrain((req) => {
    tools.push(req.tools.map((tool) => tool.name));
    return stepsBrain([toolUseReply('mcp__tracker__whoami', {}, { text: 'Checking.' }), textReply('checked')], seen)(req);
  });
}

describe('signing in to an MCP server, per person', () => {
  it("sends A the link privately; A's browser completes it; the waiting turn goes on with the server's tools; A's calls use A's account", async () => {
    const seen: string[] = [];
    const tools: string[][] = [];
    fake.setBrain((req) => {
      tools.push(req.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp__')));
      return stepsBrain([toolUseReply('mcp__tracker__connect', {}, { text: 'Connecting.' }), toolUseReply('mcp__tracker__whoami', {}, { text: 'Checking.' }), textReply('connected')], seen)(req);
    });
    const turn = bot.say('use the tracker', 'thread', 'UA');
    const note = await signInAs('UA', 'alice');
    expect(note).toMatch(/^To let Claude use tracker for you, connect your account: http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    await turn;
    // The page named the account and the chat identity, and showed the code the question in the chat names.
    const code = /(\d{3}-\d{3})/.exec(lastPage)?.[1];
    expect(lastPage).toMatch(/as <b>alice at 127\.0\.0\.1:\d+<\/b>, for the chat user <b>UA<\/b>/);
    expect(confirmations.at(-1)).toMatchObject({ requesterId: 'UA', answerers: ['UA'], title: expect.stringMatching(/^Connect alice at 127\.0\.0\.1:\d+ to tracker\?$/) });
    expect(confirmations.at(-1)!.body).toContain(`the code is ${code}`);
    expect(seen[0]).toBe("Connected to tracker. Its tools (mcp__tracker__whoami) are offered now: go on with the person's request.");
    // Nobody had signed in, so the turn began with the connect tool alone; once A is connected, the same turn has the server's own tools.
    expect(tools[0]).toEqual(['mcp__tracker__connect']);
    expect(tools[1]).toEqual(['mcp__tracker__whoami']);
    expect(seen[1]).toBe('account: alice');
    const next: string[] = [];
    whoamiBrain(next);
    await bot.say('who am I there?', 'thread', 'UA');
    expect(next[0]).toBe('account: alice');
    expect(notes.filter((entry) => entry.userId !== 'UA')).toEqual([]);
  }, 60_000);

  it("asks B in the same thread to connect B's own account; B's call never uses A's", async () => {
    const seen: string[] = [];
    whoamiBrain(seen);
    const turn = bot.say('and me?', 'thread', 'UB');
    await signInAs('UB', 'bob');
    await turn;
    expect(seen[0]).toBe('account: bob');
  }, 60_000);

  it("N7: a link completed in someone else's browser joins nothing: only A may confirm, and A's no drops it", async () => {
    const seen: string[] = [];
    fake.setBrain(stepsBrain([toolUseReply('mcp__tracker__whoami', {}, { text: 'Checking.' }), textReply('checked')], seen));
    tracker.revoke('carol');
    // C, who has not signed in, asks; Mallory's browser completes C's link (login mallory). Mallory tries to answer
    // the question in the chat (refused: only C may), and C, who did not sign in anywhere, says no.
    const answers: Array<{ option: ApprovalOption; by: string }> = [
      { option: 'yes_once', by: 'UM' },
      { option: 'no', by: 'UC' },
    ];
    confirmAs = (record) => {
      const next = answers.shift();
      if (next?.by === 'UM') setTimeout(() => void bot.app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: 'no', userId: 'UC' }), 300);
      return next;
    };
    try {
      const turn = bot.say('mine please', 'thread-c', 'UC');
      await signInAs('UC', 'mallory');
      expect(lastPage).toMatch(/as <b>mallory at [^<]+<\/b>, for the chat user <b>UC<\/b>/);
      await turn;
      expect(seen[0]).toMatch(/^mcp__tracker__whoami could not be called: the tracker sign-in was not confirmed in the chat by the person who asked, so no account was connected\.$/);
      const asked = confirmations.at(-1)!;
      expect(asked).toMatchObject({ requesterId: 'UC', answerers: ['UC'] });
      expect(await bot.app.store.get<ApprovalRecord>('approvals', asked.id)).toMatchObject({ outcome: 'no', decidedBy: 'UC' });
      expect(await bot.app.mcp!.signIns.connected('tracker', 'UC')).toBe(false);
    } finally {
      confirmAs = (record) => ({ option: 'yes_once', by: record.requesterId });
    }
  }, 60_000);

  it('keeps A signed in across a restart, with the tokens in the store unreadable without the state key', async () => {
    const key = `oauth:person:tracker:${createHash('sha256').update('UA').digest('hex').slice(0, 32)}`;
    const row = JSON.stringify(await bot.app.store.get('mcp', key));
    // Sealed fields and the record's revision (the compare-and-set's `status`: random, it says nothing).
    expect(row).toMatch(/^\{"v":1,"iv":"[^"]+","tag":"[^"]+","data":"[^"]+","status":"[A-Za-z0-9_-]{16}"\}$/);
    expect(row).not.toMatch(/access_token|refresh_token|bearer/i);
    expect(await new TokenVault(bot.app.store, randomBytes(32)).person('tracker', 'UA')).toEqual({});
    expect((await bot.app.mcp!.signIns.provider(bot.app.config.mcp.servers[0] as never, 'UA').tokens())?.access_token).toMatch(/^[0-9a-f-]{36}$/);
    await stopBot();
    await startBot();
    const seen: string[] = [];
    whoamiBrain(seen);
    await bot.say('again', 'thread', 'UA');
    expect(seen[0]).toBe('account: alice');
    expect(notes).toEqual([]);
  }, 60_000);

  it('refreshes an expired access token once, and asks A to connect again once the tokens are revoked', async () => {
    tracker.accessSeconds = 1;
    const first: string[] = [];
    bot.app.mcp!.connections.reset(bot.app.config.mcp.servers[0]!, 'UA');
    // A fresh sign-in gives a one-second token.
    tracker.revoke('alice');
    whoamiBrain(first);
    const turn = bot.say('once more', 'thread', 'UA');
    const note = await signInAs('UA', 'alice');
    expect(note).toContain('connect your account');
    await turn;
    expect(first[0]).toBe('account: alice');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const refreshesBefore = tracker.refreshes;
    tracker.accessSeconds = 3600;
    const second: string[] = [];
    whoamiBrain(second);
    await bot.say('after expiry', 'thread', 'UA');
    expect(second[0]).toBe('account: alice');
    expect(tracker.refreshes).toBe(refreshesBefore + 1);
    expect(notes).toEqual([]);
  }, 60_000);
});
