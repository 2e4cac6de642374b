// The operator's path, as a process: start-up mistakes said in one line, the log lines a started bot writes (the
// instance on every one, one per approval decision), spend in /metrics, and a SIGTERM with a question open.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord.ts';
import { freePort } from '../fakes/freePort.ts';
import { type FakeSlack, SlackSender, startFakeSlack } from '../fakes/slack.ts';
import { writeSkill } from '../lifecycle/engineHarness.ts';
import { REPORT_SKILL, reportBrain } from '../platforms/skills.ts';
import { approvalIdOf, approvalIn } from '../slack/harness.ts';
import { until } from '../until.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
const SECRET = 'operations-test-signing-secret';
const CHANNEL = 'C0OPS';
const ALICE = 'U0ALICE';

let dir: string;
let anthropic: FakeAnthropic;
let slack: FakeSlack;

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', STORE_URL: 'memory://', SKILLS_DIRS: join(dir, 'skills'), ...env }, cwd: dir, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-ops-'));
  await writeSkill(join(dir, 'skills'), REPORT_SKILL);
  // Prompts too short to cache (as the API's per-model minimum would): every prompt token is an input token.
  anthropic = await startFakeAnthropic({ minCacheTokens: 1_000_000 });
  slack = await startFakeSlack();
});

afterAll(async () => {
  await anthropic.close();
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

describe('start-up mistakes', () => {
  it('a Slack bot token alone is exit 2 and one line naming SLACK_SIGNING_SECRET and SLACK_APP_TOKEN, not the terminal chat', async () => {
    const { code, stdout, stderr } = await run(['start'], { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: anthropic.url, SLACK_BOT_TOKEN: slack.info.botToken });
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^skillbot: SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET .* nor SLACK_APP_TOKEN .* is/);
    expect(stdout).toBe('');
  });

  it('a refused Discord token is one line that says the fix, with no stack trace', async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    try {
      const { code, stderr } = await run(['start'], {
        ANTHROPIC_API_KEY: 'k',
        ANTHROPIC_BASE_URL: anthropic.url,
        DISCORD_TOKEN: 'a-revoked-token',
        DISCORD_API_URL: discord.url,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      });
      expect(code).toBe(2);
      expect(stderr.trim().split('\n')).toEqual(['skillbot: Discord refused DISCORD_TOKEN: copy the bot token again (Developer Portal → Bot → Reset Token).']);
    } finally {
      await discord.close();
    }
  });
});

describe('the piped terminal chat', () => {
  it('prints only the answers on stdout and no JSON log lines anywhere on the screen', async () => {
    anthropic.setBrain(() => textReply('piped answer'));
    const child = spawn(process.execPath, [BIN, 'chat'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', STORE_URL: 'memory://', SKILLS_DIRS: join(dir, 'skills'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: anthropic.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin?.end('hello\n');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(['piped answer']);
    expect(stderr).not.toContain('{"level"');
  }, 60_000);
});

describe('a started bot', () => {
  let child: ChildProcess;
  let base: string;
  let metricsBase: string;
  let stderr = '';
  let sender: SlackSender;
  let leftOpen = '';
  let leftCard = '';

  const logLines = () =>
    stderr
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  let ports: [number, number];
  const startBot = async () => {
    const [port, metricsPort] = ports;
    stderr = '';
    child = spawn(process.execPath, [BIN, 'start'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'info',
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        HOST: '127.0.0.1',
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: anthropic.url,
        SKILLS_DIRS: join(dir, 'skills'),
        // The default single instance: SQLite, nobody else to hand anything to.
        STORE_URL: `sqlite://${join(dir, 'state.sqlite')}`,
        SLACK_BOT_TOKEN: slack.info.botToken,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.apiUrl,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await until(async () => ((await fetch(`${base}/healthz`)).status === 200 ? true : undefined), 'a healthy bot');
  };

  beforeAll(async () => {
    ports = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${ports[0]}`;
    metricsBase = `http://127.0.0.1:${ports[1]}`;
    await startBot();
    sender = new SlackSender(`${base}/slack/events`, SECRET, slack.info);
  });

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('logs one line per approval decision, counts tokens and the script run by skill, and serves /metrics on METRICS_PORT only', async () => {
    reportBrain(anthropic);
    const ts = sender.nextTs();
    await sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> how full is the disk?` });
    const question = await until(() => approvalIn(slack, CHANNEL, ts), 'the approval question').catch((error: unknown) => {
      throw new Error(`${String(error)}\n${stderr}\n${JSON.stringify(anthropic.requests.map((r) => r.body?.messages.at(-1)))}`);
    });
    await sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
    await until(() => slack.thread(CHANNEL, ts).find((message) => message.text === 'the script ran'), 'the answer').catch((error: unknown) => {
      throw new Error(`${String(error)}\n${stderr}\n${JSON.stringify(slack.thread(CHANNEL, ts).map((m) => m.text))}`);
    });

    const metrics = await until(async () => {
      const text = await (await fetch(`${metricsBase}/metrics`)).text();
      // Tokens are counted as the turn returns, just after its answer is posted.
      return text.includes('skillbot_turns_total{status="answered"} 1') && text.includes('kind="output"') ? text : undefined;
    }, 'the turn in the metrics');
    const tokens = (kind: string) =>
      Number(new RegExp(`skillbot_tokens_total\\{world="slack:[^"]+:${CHANNEL}",model="[^"]+",kind="${kind}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    expect(tokens('input')).toBeGreaterThan(0);
    expect(tokens('output')).toBeGreaterThan(0);
    expect(metrics).toContain(`skillbot_script_runs_total{skill="${REPORT_SKILL.id}",status="ok"} 1`);
    expect(metrics).toContain(`skillbot_approvals_total{skill="${REPORT_SKILL.id}",outcome="yes_once"} 1`);
    expect(metrics).toContain(`skillbot_skill_activations_total{skill="${REPORT_SKILL.id}"} 1`);
    // Not on the port that takes Slack's events.
    expect((await fetch(`${base}/metrics`)).status).toBe(404);

    const decisions = logLines().filter((line) => line.msg === 'approval decided');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ decidedBy: ALICE, decision: 'yes_once', skill: REPORT_SKILL.id, requestedBy: ALICE, items: ['scripts/report.sh'] });
    expect(decisions[0]?.waitedMs).toEqual(expect.any(Number));
    expect(decisions[0]?.skillHash).toMatch(/^[0-9a-f]{64}$/);
  }, 90_000);

  it('stops within 10 s of SIGTERM with a question open, with no error line and no hand-over line, and every line names the instance', async () => {
    reportBrain(anthropic);
    const ts = sender.nextTs();
    await sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> and now?` });
    leftCard = (await until(() => approvalIn(slack, CHANNEL, ts), 'the approval question')).ts;

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const stopAsked = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - stopAsked).toBeLessThan(10_000);

    const lines = logLines();
    expect(lines.length).toBeGreaterThan(5);
    const instanceId = lines[0]?.instanceId;
    expect(instanceId).toEqual(expect.stringMatching(/^\S+-\d+-[0-9a-f]{6}$/));
    for (const line of lines) expect(line).toMatchObject({ instanceId, pid: child.pid, hostname: expect.any(String) });
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(stderr).not.toMatch(/hand(ed)? ?over|another instance/i);
    expect(lines.some((line) => line.msg === 'unfinished turns left queued: they are answered after the restart')).toBe(true);
    // Nothing was answered for the open question's turn: it is left for the restart.
    expect(slack.thread(CHANNEL, ts).some((message) => /script (did not )?ran?/.test(message.text ?? ''))).toBe(false);
    leftOpen = ts;
  }, 60_000);

  it('says on the question that the bot stopped, and after the restart asks again and answers the message', async () => {
    // The card of the question left open says it lapsed, without buttons: a click while the bot is away goes nowhere.
    const lapsed = slack.thread(CHANNEL, leftOpen).find((message) => message.ts === leftCard);
    expect(lapsed?.text).toMatch(/the bot restarted or shut down before anyone answered/);
    expect(JSON.stringify(lapsed?.blocks ?? [])).not.toContain('hitl_');

    await startBot();
    // The message was never answered: it stayed queued, and the restarted bot runs it again and asks again.
    const asked = await until(() => approvalIn(slack, CHANNEL, leftOpen), 'the question asked again');
    expect(asked.ts).not.toBe(leftCard);
    await sender.click({ user: ALICE, channel: CHANNEL, messageTs: asked.ts, threadTs: leftOpen, actionId: 'hitl_yes_once', value: approvalIdOf(asked) });
    await until(() => slack.thread(CHANNEL, leftOpen).find((message) => message.text === 'the script ran'), 'the answer after the restart');
    expect(slack.thread(CHANNEL, leftOpen).filter((message) => message.text === 'the script ran')).toHaveLength(1);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
