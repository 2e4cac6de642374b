// A turn that outlives its chat lease: two real `skillbot start` processes on one SQLite file, the one running a
// turn frozen (SIGSTOP, as CPU starvation freezes it) while the fake Claude holds its answer, past its liveness and
// its lease. The other takes the chat and the message over and answers. When the frozen one wakes with its own
// answer, it must not post it: the person sees exactly one answer to the one message.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { NOTES_SKILL, writeSkills } from '../agent/harness.ts';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { freePort } from '../fakes/freePort.ts';
import { type FakeSlack, SlackSender, startFakeSlack } from '../fakes/slack.ts';
import { until } from '../until.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
const SECRET = 'lease-lost-test-signing-secret';
const CHANNEL = 'C0LEASE';
const FIRST_ANSWER = 'The answer, from the run that froze.';
const SECOND_ANSWER = 'The answer, from the run that took the message over.';

interface Bot {
  child: ChildProcess;
  port: number;
  stderr: string;
}

let dir: string;
let anthropic: FakeAnthropic;
let slack: FakeSlack;
let store: Store;
const bots: Bot[] = [];

async function startBot(): Promise<Bot> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start'], {
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
      SLACK_BOT_TOKEN: slack.info.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const bot: Bot = { child, port, stderr: '' };
  child.stderr?.on('data', (chunk: Buffer) => (bot.stderr += chunk.toString()));
  bots.push(bot);
  // Generous: from sources (no fresh dist/), two starts at once on a loaded machine take a while.
  await until(async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 ? true : undefined), 'a healthy bot', 120_000, () => bot.stderr.slice(-3000));
  return bot;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-lease-lost-'));
  // An operator's folder, not a private one: the sandbox's user enters it to reach the chat workspaces.
  await chmod(dir, 0o755);
  await writeSkills(join(dir, 'skills'), [NOTES_SKILL]);
  anthropic = await startFakeAnthropic();
  slack = await startFakeSlack();
});

afterAll(async () => {
  for (const bot of bots) {
    if (bot.child.exitCode !== null) continue;
    bot.child.kill('SIGCONT');
    bot.child.kill('SIGKILL');
  }
  await store?.close();
  await anthropic.close();
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

/** What the two bots logged last, for a timeout's message. */
const tails = (runner: Bot, other: Bot): string => `frozen one:\n${runner.stderr.slice(-2500)}\nthe other:\n${other.stderr.slice(-2500)}`;

/** Every text a bot message in the thread ever showed that is one of the two answers, each showing counted once. */
function answersShown(threadTs: string): string[] {
  const shown: string[] = [];
  for (const message of [...slack.messages, ...slack.deleted]) {
    if (message.threadTs !== threadTs || message.channel !== CHANNEL) continue;
    let last: string | undefined;
    for (const text of [...message.edits.map((edit) => edit.text), message.text]) {
      if (text !== last && (text === FIRST_ANSWER || text === SECOND_ANSWER)) shown.push(text);
      last = text;
    }
  }
  return shown;
}

describe('a turn that outlives its chat lease', () => {
  it('is answered once: the run that froze past its lease posts nothing once another instance answered', async () => {
    // The first model call waits until the test lets it answer; every later one answers at once.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let calls = 0;
    anthropic.setBrain(async () => {
      calls += 1;
      if (calls === 1) {
        await firstHeld;
        return textReply(FIRST_ANSWER);
      }
      return textReply(SECOND_ANSWER);
    });
    const [one] = await Promise.all([startBot(), startBot()]);
    store = await createStore(`sqlite://${join(dir, 'state.sqlite')}`);

    const sender = new SlackSender(`http://127.0.0.1:${one.port}/slack/events`, SECRET, slack.info);
    const ts = sender.nextTs();
    expect((await sender.mention({ channel: CHANNEL, user: 'U0ALICE', ts, text: `<@${slack.info.botUserId}> what is the answer?` })).status).toBe(200);
    await until(() => (calls >= 1 ? true : undefined), 'the turn to reach the model');

    // Whichever instance holds the chat runs the turn: freeze that one.
    const chatId = `slack:${slack.info.teamId}:${CHANNEL}/${ts}`;
    const lease = await until(() => store.get<{ instanceId?: string }>('leases', `chat:${chatId}`), 'the chat lease');
    const runner = bots.find((bot) => lease.instanceId?.includes(`-${bot.child.pid}-`));
    const other = bots.find((bot) => bot !== runner);
    if (!runner || !other) throw new Error(`no bot runs the chat (lease ${JSON.stringify(lease)})`);
    runner.child.kill('SIGSTOP');

    // Past its liveness (3 s) the other instance takes the chat and the message over, and answers.
    await until(() => (answersShown(ts).includes(SECOND_ANSWER) ? true : undefined), 'the other instance to answer', 30_000, () => tails(runner, other));
    expect(calls).toBe(2);

    // The frozen run wakes up with its own answer.
    releaseFirst();
    runner.child.kill('SIGCONT');
    await until(
      () => (runner.stderr.includes('another instance took this message over') || answersShown(ts).includes(FIRST_ANSWER) ? true : undefined),
      'the frozen run to finish its turn',
      30_000,
      () => tails(runner, other),
    );
    // Give a late post the time to land before counting.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(answersShown(ts)).toEqual([SECOND_ANSWER]);
    // And the thread still shows it: the woken run wrote nothing over it.
    expect(slack.thread(CHANNEL, ts).map((message) => message.text)).toEqual([SECOND_ANSWER]);
    expect(await until(async () => ((await store.inboxSize()) === 0 ? true : undefined), 'the inbox to empty')).toBe(true);
  }, 300_000);
});
