// A routine every minute, two `skillbot start` processes on one Redis, through the Slack fake: each minute runs
// exactly once (a root message naming the routine and its minute, one answer in its thread), through a SIGKILL
// of one instance and a restart of both (the minutes missed while both were down run once on start, within the
// grace window); a stranger cannot remove it, its owner can. The scheduler's clock runs 60 times faster
// (ROUTINES_CLOCK_SPEED): a minute is a second, the rest of the path is the real one.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { freePort } from '../fakes/freePort.ts';
import { type FakeSlack, type PostedMessage, SlackSender, startFakeSlack } from '../fakes/slack.ts';
import { until } from '../until.ts';
import { type OwnRedis, startOwnRedis } from './redisServer.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
const SECRET = 'routines-test-signing-secret';
const CHANNEL = 'C0ROUTINES';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const ORIGIN = Date.now();

let dir: string;
let redis: OwnRedis;
let slack: FakeSlack;
let anthropic: FakeAnthropic;

interface Bot {
  child: ChildProcess;
  sender: SlackSender;
  stderr: () => string;
}

async function startBot(): Promise<Bot> {
  const port = await freePort();
  let stderr = '';
  const child = spawn(process.execPath, [BIN, 'start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      SKILLS_DIRS: join(dir, 'skills'),
      STORE_URL: redis.url,
      SKILLBOT_STATE_KEY: 'routines-test-state-key-0123456789abcdef',
      SLACK_BOT_TOKEN: slack.info.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      ROUTINES_CLOCK_SPEED: '60',
      ROUTINES_CLOCK_ORIGIN: String(ORIGIN),
      ROUTINE_TICK_MS: '100',
      // An hour of the fast clock is a minute of real time: a slow start on a busy machine stays within it.
      ROUTINE_GRACE_MS: '3600000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  await until(async () => ((await fetch(`${base}/healthz`)).status === 200 ? true : undefined), 'the bot to be ready', 40_000, () => stderr.slice(-2000));
  return { child, sender: new SlackSender(`${base}/slack/events`, SECRET, slack.info), stderr: () => stderr };
}

async function stopBot(bot: Bot, signal: NodeJS.Signals): Promise<void> {
  if (bot.child.exitCode !== null) return;
  const exited = new Promise((resolve) => bot.child.once('exit', resolve));
  bot.child.kill(signal);
  await exited;
}

/** A slash command's private answer (through its response_url). */
async function command(bot: Bot, name: string, text: string, user: string): Promise<string> {
  const responseUrl = slack.responseUrl();
  const sent = await bot.sender.command(name, text, { channel: CHANNEL, user, responseUrl });
  expect(sent.status).toBe(200);
  const answer = await slack.waitFor(() => slack.responses.find((entry) => responseUrl.endsWith(entry.id)), { what: `the answer to ${name} ${text}` });
  expect(answer.body.response_type).toBe('ephemeral');
  return String(answer.body.text);
}

const roots = (id: string): PostedMessage[] => slack.messages.filter((message) => message.channel === CHANNEL && message.threadTs === undefined && message.text.startsWith(`Routine ${id} `));
const minuteOf = (message: PostedMessage) => /run of (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(message.text)?.[1] ?? '?';
const waitForRoots = (id: string, count: number, bots: Bot[]) =>
  until(() => (roots(id).length >= count ? true : undefined), `${count} runs of ${id}`, 60_000, () => bots.map((bot) => bot.stderr().slice(-1500)).join('\n---\n'));

let bots: Bot[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-routines-'));
  await chmod(dir, 0o755);
  redis = await startOwnRedis();
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic({ brain: () => textReply('routine done') });
});

afterAll(async () => {
  for (const bot of bots) if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
  await anthropic?.close();
  await slack?.close();
  redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(process.env.REDIS_URL || process.env.CI !== 'true')('a routine on two instances sharing Redis', () => {
  it('runs once per minute through a SIGKILL and a restart of both; only its owner removes it', { timeout: 180_000 }, async () => {
    let [a, b] = (bots = [await startBot(), await startBot()]) as [Bot, Bot];
    const added = await command(a, '/routine', 'add every minute :: say hi to the channel', ALICE);
    const id = /`(r-[0-9a-f]{8})`/.exec(added)?.[1];
    expect(added).toMatch(/^Added `r-[0-9a-f]{8}` routine · every minute · owner <@U0ALICE> · next: /);
    if (id === undefined) throw new Error('no routine id in the answer');
    expect(await command(b, '/routine', 'list', BOB)).toContain(`\`${id}\` routine · every minute`);

    await waitForRoots(id, 4, bots);
    a.child.kill('SIGKILL');
    const afterKill = roots(id).length;
    await waitForRoots(id, afterKill + 4, [b]);
    // Both down: the minutes that pass now are run on start (within the grace window).
    await stopBot(b, 'SIGTERM');
    const beforeRestart = roots(id).length;
    await delay(3_000);
    bots = [await startBot(), await startBot()];
    [a, b] = bots as [Bot, Bot];
    await waitForRoots(id, beforeRestart + 6, bots);
    // Long enough for a minute claimed by the killed instance and never finished to be taken over.
    await delay(11_000);

    expect(await command(b, '/routine', `remove ${id}`, BOB)).toBe(`Only <@${ALICE}> (its owner) or an admin may remove routine \`${id}\`.`);
    const running = roots(id).length;
    await waitForRoots(id, running + 1, bots);
    expect(await command(a, '/routine', `remove ${id}`, ALICE)).toBe(`Routine \`${id}\` removed.`);
    await delay(1_500);
    const final = roots(id).length;
    await delay(2_000);
    expect(roots(id).length).toBe(final);

    const minutes = roots(id).map(minuteOf);
    // Exactly once: no minute twice, and none missing between the first and the last.
    expect(new Set(minutes).size).toBe(minutes.length);
    const sorted = [...minutes].sort();
    const first = Date.parse(`${sorted[0]}Z`);
    const expected = sorted.map((_, index) => new Date(first + index * 60_000).toISOString().slice(0, 16).replace('T', ' '));
    expect(sorted).toEqual(expected);
    // Each run is one turn, answered once in its own thread, whichever instance took it.
    await until(() => (roots(id).every((root) => slack.thread(CHANNEL, root.ts).some((reply) => reply.threadTs === root.ts && reply.text === 'routine done')) ? true : undefined), 'every run answered', 60_000);
    for (const root of roots(id)) expect(slack.thread(CHANNEL, root.ts).filter((reply) => reply.threadTs === root.ts && reply.text === 'routine done')).toHaveLength(1);
    await Promise.all(bots.map((bot) => stopBot(bot, 'SIGTERM')));
  });
});
