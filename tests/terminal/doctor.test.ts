// `skillbot doctor` as a process, against the loopback Slack and Discord fakes and the real bwrap.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATS_SKILL, writeSkills } from '../agent/harness.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';
import { startFakeBedrock } from '../fakes/cloudModels.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { detectBoundsMode } from '../../src/exec/runCgroup.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');

let dir: string;
let slack: FakeSlack;
let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let base: Record<string, string>;
const GOOD_KEY = 'sk-ant-doctor-good';

function doctor(env: Record<string, string>, asPid1 = false): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // As PID 1: the bot alone in a PID namespace of its own, as in a container started without --init.
    const [program, args] = asPid1
      ? ['unshare', ['--pid', '--fork', '--mount-proc', process.execPath, BIN, 'doctor']]
      : [process.execPath, [BIN, 'doctor']];
    execFile(
      program,
      args,
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...base, ...env }, cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const line = (stdout: string, name: string) => stdout.split('\n').find((text) => text.slice(6).startsWith(`${name}:`)) ?? '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-doctor-'));
  await writeSkills(join(dir, 'skills'), [STATS_SKILL]);
  slack = await startFakeSlack();
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic({ apiKeys: [GOOD_KEY] });
  base = { SKILLS_DIRS: join(dir, 'skills'), STORE_URL: 'memory://', ANTHROPIC_API_KEY: GOOD_KEY, ANTHROPIC_BASE_URL: anthropic.url };
});
afterAll(async () => {
  await anthropic.close();
  await slack.close();
  await discord.close();
  await rm(dir, { recursive: true, force: true });
});

describe('skillbot doctor', () => {
  it('passes every check when the sandbox works, the store answers and both platforms accept their tokens', async () => {
    const { code, stdout } = await doctor({
      SLACK_BOT_TOKEN: slack.info.botToken,
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_API_URL: slack.apiUrl,
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.url,
    });
    expect(line(stdout, 'sandbox')).toMatch(/^ok {4}sandbox: bwrap; own user, pid/);
    expect(line(stdout, 'network')).toMatch(/^ok {4}network: skills a world lists reach public addresses only/);
    expect(line(stdout, 'init')).toBe('');
    expect(line(stdout, 'store')).toMatch(/^ok {4}store: memory reachable/);
    expect(line(stdout, 'slack')).toMatch(/^ok {4}slack: SLACK_BOT_TOKEN accepted/);
    expect(line(stdout, 'discord')).toMatch(/^ok {4}discord: DISCORD_TOKEN accepted/);
    expect(line(stdout, 'skills')).toMatch(/^ok {4}skills: 1 load from /);
    expect(line(stdout, 'model')).toMatch(/^ok {4}model: claude-\S+ answers through the Anthropic API/);
    expect(code).toBe(0);
  });

  it('checks the model key with one real call: none set, a refused one and a working one exit 1, 1 and 0', async () => {
    const none = await doctor({ ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' });
    expect(line(none.stdout, 'model')).toMatch(/^FAIL {2}model: ANTHROPIC_API_KEY is not set/);
    expect(none.code).toBe(1);

    const calls = anthropic.requests.length;
    const refused = await doctor({ ANTHROPIC_API_KEY: 'sk-ant-revoked' });
    expect(line(refused.stdout, 'model')).toMatch(/^FAIL {2}model: the Anthropic API at http:\/\/127\.0\.0\.1:\d+ refused ANTHROPIC_API_KEY \(401: invalid x-api-key\)/);
    expect(refused.code).toBe(1);
    expect(anthropic.requests.slice(calls).map((request) => request.apiKey)).toEqual(['sk-ant-revoked']);

    const working = await doctor({});
    expect(line(working.stdout, 'model')).toMatch(/^ok {4}model: /);
    expect(working.code).toBe(0);
    // One cheap call: a one-token answer.
    expect(anthropic.requests.at(-1)?.body).toMatchObject({ max_tokens: 1 });
  });

  it('checks Bedrock credentials the same way, through the Bedrock client', async () => {
    const bedrock = await startFakeBedrock({ anthropicUrl: anthropic.url, anthropicKey: GOOD_KEY, region: 'us-east-1' });
    try {
      const env = { ANTHROPIC_PROVIDER: 'bedrock', AWS_REGION: 'us-east-1', ANTHROPIC_BEDROCK_BASE_URL: bedrock.url, SKILLBOT_MODEL: 'anthropic.claude-sonnet-4-5-20250929-v1:0' };
      const signed = await doctor({ ...env, AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
      expect(line(signed.stdout, 'model'), signed.stdout).toMatch(/^ok {4}model: anthropic\.claude-sonnet-4-5-20250929-v1:0 answers through Amazon Bedrock \(us-east-1\)/);
      expect(bedrock.requests.at(-1)?.path).toMatch(/^\/model\/.+\/invoke$/);
      expect(signed.code).toBe(0);
      const unsigned = await doctor({ ...env, AWS_BEARER_TOKEN_BEDROCK: '', AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'), AWS_CONFIG_FILE: join(dir, 'none'), AWS_EC2_METADATA_DISABLED: 'true' });
      expect(line(unsigned.stdout, 'model')).toMatch(/^FAIL {2}model: Amazon Bedrock \(us-east-1\): no usable credentials .*; set the AWS credentials/);
      expect(unsigned.code).toBe(1);
    } finally {
      await bedrock.close();
    }
  });

  it('names a model API that cannot be reached', async () => {
    const { code, stdout } = await doctor({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(line(stdout, 'model')).toMatch(/^FAIL {2}model: the Anthropic API at http:\/\/127\.0\.0\.1:9 cannot be reached/);
    expect(code).toBe(1);
  });

  it('fails on a Slack token without its partner, naming both', async () => {
    const { code, stdout } = await doctor({ SLACK_BOT_TOKEN: slack.info.botToken, SLACK_API_URL: slack.apiUrl });
    expect(stdout).toMatch(/FAIL {2}slack: SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET .* nor SLACK_APP_TOKEN/);
    expect(code).toBe(1);
  });

  it('counts the skills that load and names the one a name clash shadows', async () => {
    const other = join(dir, 'other-skills');
    await writeSkills(other, [STATS_SKILL, { ...STATS_SKILL, name: 'repo-size' }]);
    const { stdout } = await doctor({ SKILLS_DIRS: `${join(dir, 'skills')}:${other}` });
    expect(line(stdout, 'skills')).toBe(
      `ok    skills: 2 load from ${join(dir, 'skills')}:${other}; 1 shadowed by an earlier one of the same name: repo-stats at ${join(other, 'repo-stats')} (shadowed by ${join(dir, 'skills', 'repo-stats')})`,
    );
  });

  it("flags a skill whose instructions' own code imports a Node package the host lacks (docx's create path)", async () => {
    const office = join(dir, 'office-skills');
    await writeSkills(office, [
      {
        name: 'word-maker',
        description: 'Create Word documents.',
        body: '# Word\nTo create a new document, write JavaScript with docx-js: see [docx-js.md](docx-js.md).',
        files: { 'docx-js.md': "# docx-js\n\n```javascript\nconst { Document, Packer } = require('skillbot-no-such-docx');\n```\n\nAlternatives: `import fitz` in Python.\n" },
      },
    ]);
    const { stdout } = await doctor({ SKILLS_DIRS: office });
    expect(line(stdout, 'dependencies')).toMatch(
      /^warn {2}dependencies: 1 skill\(s\) use what this host lacks: word-maker's instructions write code that imports skillbot-no-such-docx \(npm skillbot-no-such-docx\) \(its create path fails without it\)/,
    );
  });

  it('reports a broken plugin marketplace.json under skills', async () => {
    const market = join(dir, 'market');
    await writeSkills(join(market, 'plugins', 'tools', 'skills'), [STATS_SKILL]);
    await mkdir(join(market, '.claude-plugin'), { recursive: true });
    await writeFile(join(market, '.claude-plugin', 'marketplace.json'), '{"name": "m", "plugins": [');
    const { code, stdout } = await doctor({ SKILLS_DIRS: market });
    expect(line(stdout, 'skills')).toMatch(/^FAIL {2}skills: .*marketplace\.json: /);
    expect(code).toBe(1);
  });

  it('fails, exit 1, naming each wrong token', async () => {
    const { code, stdout } = await doctor({
      SLACK_BOT_TOKEN: 'xoxb-wrong',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_API_URL: slack.apiUrl,
      DISCORD_TOKEN: 'wrong',
      DISCORD_API_URL: discord.url,
    });
    expect(code).toBe(1);
    expect(line(stdout, 'slack')).toMatch(/^FAIL {2}slack: auth.test refused SLACK_BOT_TOKEN \(invalid_auth\)/);
    expect(line(stdout, 'discord')).toMatch(/^FAIL {2}discord: .*HTTP 401/);
  });

  it('says which mode bounds memory and processes, and what a run is then guaranteed', async () => {
    const { stdout } = await doctor({ SCRIPT_MEMORY_MB: '512', SCRIPT_TMP_MB: '32' });
    // The bot finds the mode as doctor does; doctor must then say it and what it guarantees.
    const mode = detectBoundsMode();
    if (mode.kind === 'cgroup') {
      expect(line(stdout, 'bounds')).toMatch(/^ok {4}bounds: cgroup mode \(v[12]\): each run as a whole holds at most 512 MiB of memory, its HOME 256 MiB, \/tmp 32 MiB/);
    } else {
      expect(line(stdout, 'bounds')).toMatch(/^warn {2}bounds: rlimits mode \(.*\): 512 MiB of memory per process, not per run; .*\/tmp 32 MiB/);
    }
  });

  it.runIf(process.getuid?.() === 0)('warns when the bot is PID 1 without an init, naming --init', async () => {
    const { stdout } = await doctor({}, true);
    expect(line(stdout, 'init')).toMatch(/^warn {2}init: the bot runs as PID 1 without an init: start the container with --init/);
  });

  it('fails when the sandbox is unusable, and says what to do', async () => {
    const fake = join(dir, 'bwrap');
    await writeFile(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
    await chmod(fake, 0o755);
    await chmod(dir, 0o755);
    const { code, stdout } = await doctor({ PATH: `${dir}:${process.env.PATH ?? ''}` });
    expect(code).toBe(1);
    expect(line(stdout, 'sandbox')).toMatch(/^FAIL {2}sandbox: bwrap is unusable .*uid map.*AppArmor/);
  });

  it('warns, without failing, when SCRIPT_SANDBOX=off', async () => {
    const { code, stdout } = await doctor({ SCRIPT_SANDBOX: 'off' });
    expect(line(stdout, 'sandbox')).toMatch(/^warn {2}sandbox: SCRIPT_SANDBOX=off/);
    expect(code).toBe(0);
  });

  it('fails on an invalid skill', async () => {
    const bad = join(dir, 'bad-skills');
    await writeSkills(bad, [{ ...STATS_SKILL, name: 'broken' }]);
    await writeFile(join(bad, 'broken', 'SKILL.md'), '---\nname: broken\ndescription: 12\n---\nA description that is a number.\n');
    const { code, stdout } = await doctor({ SKILLS_DIRS: bad });
    expect(code).toBe(1);
    expect(line(stdout, 'skills')).toMatch(/^FAIL {2}skills: 1 of 1 invalid; broken: /);
  });

  it.runIf(process.env.REDIS_URL)('fails on a shared Redis store without SKILLBOT_STATE_KEY, and passes with one', async () => {
    const redis = { STORE_URL: process.env.REDIS_URL ?? '' };
    const without = await doctor(redis);
    expect(line(without.stdout, 'state key')).toMatch(/^FAIL {2}state key: .*SKILLBOT_STATE_KEY/);
    expect(without.code).toBe(1);
    const withKey = await doctor({ ...redis, SKILLBOT_STATE_KEY: 'k'.repeat(64) });
    expect(line(withKey.stdout, 'state key')).toMatch(/^ok {4}state key: SKILLBOT_STATE_KEY/);
    expect(withKey.code).toBe(0);
  });
});
