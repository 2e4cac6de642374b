import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { STATS_SKILL, writeSkills } from '../agent/harness.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');

function run(args: string[], env: Record<string, string>, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

let fake: FakeAnthropic;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  fake = await startFakeAnthropic();
  dir = await mkdtemp(join(tmpdir(), 'skillbot-cli-'));
  // An operator's folder, not a private one: the sandbox's user enters it to reach the chat workspaces.
  await chmod(dir, 0o755);
  await writeSkills(join(dir, 'skills'), [STATS_SKILL]);
  env = { ANTHROPIC_BASE_URL: fake.url, SKILLS_DIRS: join(dir, 'skills'), STORE_URL: 'memory://' };
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe('skillbot chat in pipe mode', () => {
  it('prints one answer per input line', async () => {
    fake.setBrain((req) => textReply(`echo: ${JSON.stringify(req.messages.at(-1)?.content)}`));
    const { code, stdout } = await run(['chat'], env, 'hello\nworld\n');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('hello');
    expect(lines[1]).toContain('world');
  });

  it('lists the skills with /skills and runs one with /skill ID args, the words reaching the skill as Claude Code passes them', async () => {
    let asked = '';
    fake.setBrain((req) => {
      asked = JSON.stringify(req.messages);
      return textReply('done');
    });
    const { code, stdout } = await run(['chat'], env, '/skills\n/skill repo-stats src/ lib/\n');
    expect(code).toBe(0);
    expect(stdout).toContain('/skill repo-stats  Count lines in the repository.');
    expect(asked).toContain('ARGUMENTS: src/ lib/');
    expect(stdout.trim().split('\n').at(-1)).toContain('done');
  });

  it('answers every approval with no, and says so', async () => {
    let toolResult = '';
    fake.setBrain((req) => {
      const last = lastToolResult(req);
      if (!last) return toolUseReply('load_skill', { skill_id: 'repo-stats' });
      toolResult = last.content;
      return textReply('I could not count: the script was not approved.');
    });
    const { code, stdout } = await run(['chat'], env, 'count the lines\n');
    expect(code).toBe(0);
    expect(stdout).toMatch(/\[approval\].*answered no automatically/);
    expect(stdout).toContain('I could not count');
    expect(toolResult).toContain('did not run');
  });

  it('says what to set, with exit code 2, when no model is configured', async () => {
    const { code, stdout, stderr } = await run(['chat'], { SKILLS_DIRS: env.SKILLS_DIRS!, STORE_URL: 'memory://' });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('ANTHROPIC_API_KEY');
    expect(stderr).toContain('.env.example');
  });

  it('names a bad variable in one line', async () => {
    const { code, stderr } = await run(['chat'], { ...env, PORT: 'abc' });
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('skillbot: PORT must be a whole number from 0 to 65535 (got "abc"); see .env.example.');
  });

  it('lists skills', async () => {
    const { code, stdout } = await run(['skills', 'list'], env);
    expect(code).toBe(0);
    expect(stdout).toContain('repo-stats');
  });
});
