import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { freePort } from '../fakes/freePort.ts';
import { type FakeSlack, SlackSender, startFakeSlack } from '../fakes/slack.ts';
import { NOTES_SKILL, writeSkills } from '../agent/harness.ts';
import { until } from '../until.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
const SECRET = 'start-test-signing-secret';

let dir: string;
let anthropic: FakeAnthropic;
let slack: FakeSlack;
let child: ChildProcess;
let base: string;
let stderr = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-start-'));
  // An operator's folder, not a private one: the sandbox's user enters it to reach the chat workspaces.
  await chmod(dir, 0o755);
  await writeSkills(join(dir, 'skills'), [NOTES_SKILL]);
  anthropic = await startFakeAnthropic({ brain: () => textReply('hello from the bot') });
  slack = await startFakeSlack();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [BIN, 'start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      SKILLS_DIRS: join(dir, 'skills'),
      STORE_URL: `sqlite://${join(dir, 'state.sqlite')}`,
      SLACK_BOT_TOKEN: slack.info.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
});

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await anthropic.close();
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

describe('skillbot start', () => {
  it('reports health, answers a Slack mention, serves metrics, and stops cleanly on SIGTERM', async () => {
    const health = await until(async () => {
      const response = await fetch(`${base}/healthz`);
      return response.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
    }, 'a healthy bot');
    expect(health).toMatchObject({ ok: true, store: true, platforms: { slack: true } });

    const sender = new SlackSender(`${base}/slack/events`, SECRET, slack.info);
    const ts = sender.nextTs();
    const delivered = await sender.mention({ channel: 'C0START', user: 'U0ALICE', ts, text: `<@${slack.info.botUserId}> hi` });
    expect(delivered.status).toBe(200);
    await until(async () => slack.thread('C0START', ts).find((message) => message.text === 'hello from the bot'), 'the answer');

    // The turn is counted right after its answer is posted.
    const metrics = await until(async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return text.includes('skillbot_turns_total{status="answered"} 1') ? text : undefined;
    }, 'the turn in the metrics');
    expect(metrics).toContain('skillbot_process_resident_memory_bytes');

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/unhandled|uncaught/i);
  });
});
