// Issue 27, F2: one networked run used to crash the whole bot (an upstream answering `HTTP/1.1 000` made the egress
// proxy throw in the bot's event loop), and again after every restart, because the queued turn re-ran and resumed
// the old "yes, once" without asking anyone. Here a real bot process (bin/skillbot.mjs, Slack over a loopback fake,
// SQLite) runs that skill: the bot stays up; then it is killed during the approved run, twice, and each restart
// asks again (the card says why) instead of running the code on the old answer.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { freePort } from '../fakes/freePort.ts';
import { type FakeSlack, SlackSender, startFakeSlack } from '../fakes/slack.ts';
import { writeSkill } from '../lifecycle/engineHarness.ts';
import { approvalIdOf, approvalIn } from '../slack/harness.ts';
import { openTestNetns, type TestNetns } from './testNetns.ts';
import { until as untilTimeout } from '../until.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
const SECRET = 'crash-loop-test-signing-secret';
const CHANNEL = 'C0CRASH';
const ALICE = 'U0ALICE';

let dir: string;
let netns: TestNetns;
let anthropic: FakeAnthropic;
let slack: FakeSlack;
let bot: ChildProcess | undefined;
let stderr = '';

/** Waits as `until` does; a timeout shows the bot's last stderr. */
const until = <T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 40_000) => untilTimeout(probe, what, ms, () => stderr.slice(-3000));

/** Each run of the script appends the status the proxy gave it to the workspace's runs.log (read from the host). */
async function runsLogged(): Promise<string[]> {
  const files = (await readdir(join(dir, 'workspaces'), { recursive: true }).catch(() => [])).filter((name) => name.endsWith('runs.log'));
  const text = (await Promise.all(files.map((name) => readFile(join(dir, 'workspaces', name), 'utf8').catch(() => '')))).join('');
  return text.split('\n').filter((line) => line !== '');
}

describe('a networked run against an upstream answering HTTP/1.1 000', () => {
  let port: number;
  let sender: SlackSender;
  const ts = '1700000000.000100';

  const start = async () => {
    stderr = '';
    bot = spawn(process.execPath, [BIN, 'start'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'info',
        PORT: String(port),
        HOST: '127.0.0.1',
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: anthropic.url,
        SKILLS_DIRS: join(dir, 'skills'),
        STORE_URL: `sqlite://${join(dir, 'state.sqlite')}`,
        WORKSPACES_DIR: join(dir, 'workspaces'),
        SKILLBOT_CONFIG: join(dir, 'skillbot.yaml'),
        SLACK_BOT_TOKEN: slack.info.botToken,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.apiUrl,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    bot.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await until(async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 ? true : undefined), 'a healthy bot');
  };
  const crash = async () => {
    const exited = new Promise((resolve) => bot?.once('exit', resolve));
    bot?.kill('SIGKILL');
    await exited;
  };
  /** The open card of the thread, answered `yes_once` by Alice. */
  const approveOpenCard = async (not?: string) => {
    const card = await until(() => {
      const open = approvalIn(slack, CHANNEL, ts);
      return open !== undefined && open.ts !== not ? open : undefined;
    }, 'the approval card');
    await sender.click({ user: ALICE, channel: CHANNEL, messageTs: card.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(card) });
    return card;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-crash-loop-'));
    await chmod(dir, 0o755);
    netns = await openTestNetns();
    anthropic = await startFakeAnthropic();
    slack = await startFakeSlack();
    port = await freePort();
    await writeSkill(join(dir, 'skills'), {
      name: 'fetcher',
      description: 'Fetch the team dashboard.',
      frontmatter: 'run-on-load: [scripts/fetch.sh]',
      body: 'scripts/fetch.sh runs when this skill loads.',
      files: {
        'scripts/fetch.sh':
          '#!/bin/sh\n' +
          `code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://${netns.address}:${netns.zeroStatusPort}/dashboard)\n` +
          'echo "$code" >> /workspace/runs.log\n' +
          // Long enough to be killed with the bot mid-run.
          'sleep 300\n',
      },
    });
    // The namespace's private range is reachable only because the world's egressAllow names it (issue 26, item 8).
    await writeFile(join(dir, 'skillbot.yaml'), `defaults:\n  network: [fetcher]\n  egressAllow: ['${netns.subnet}']\n`);
    anthropic.setBrain((req) => (lastToolResult(req) === undefined ? toolUseReply('load_skill', { skill_id: 'fetcher' }) : textReply('the dashboard was not fetched')));
    await start();
    sender = new SlackSender(`http://127.0.0.1:${port}/slack/events`, SECRET, slack.info);
  }, 60_000);

  afterAll(async () => {
    if (bot?.exitCode === null) bot.kill('SIGKILL');
    await anthropic?.close();
    await slack?.close();
    await netns?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the bot stays up (the script gets a 502); killed during that run twice, each restart asks again and says why', async () => {
    await sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> fetch the dashboard` });
    const first = await approveOpenCard();
    await until(async () => ((await runsLogged()).length === 1 ? true : undefined), 'the first run to reach the upstream');
    // The proxy answered the invalid status with a 502, and the bot is still there.
    expect(await runsLogged()).toEqual(['502']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bot?.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);

    let previous = first.ts;
    for (const round of [2, 3]) {
      await crash();
      await start();
      // The queued turn runs again: its "yes, once" was used by the run that started, so it asks again.
      const again = await approveOpenCard(previous);
      expect(JSON.stringify(again.blocks)).toMatch(/Asked again: the bot stopped \(a restart or a crash\) while the run you approved with \\"Yes, once\\" was under way/);
      await until(async () => ((await runsLogged()).length === round ? true : undefined), `run ${round} to reach the upstream`);
      previous = again.ts;
    }
    // Three runs, each on its own answer: never one on a resumed "yes, once".
    expect(await runsLogged()).toEqual(['502', '502', '502']);
    expect(bot?.exitCode).toBeNull();
  }, 150_000);
});
