// The README's quick start, verbatim, on a fresh copy of the project: `cp .env.example .env`, set the key in
// .env, `npm start`, first answer. Every other empty line of .env.example must mean "unset", not a crash.
import { execFileSync, spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';

const ROOT = join(import.meta.dirname, '..', '..');

let copy: string;
let anthropic: FakeAnthropic;

beforeAll(async () => {
  anthropic = await startFakeAnthropic({ brain: (req) => textReply(`you said: ${lastUserText(req)}`) });
  copy = await mkdtemp(join(tmpdir(), 'skillbot-quickstart-'));
  // An operator's folder, not a private one: the sandbox's user enters it to reach the chat workspaces.
  await chmod(copy, 0o755);
  // What a clone holds (no .env, no data/, no build: what .gitignore leaves out), with the installed dependencies.
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT }).toString().split('\0').filter(Boolean);
  for (const file of tracked) {
    await mkdir(dirname(join(copy, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(copy, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // deleted in the work tree but not yet committed
    });
  }
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});

afterAll(async () => {
  await anthropic?.close();
  if (copy) await rm(copy, { recursive: true, force: true });
});

it('cp .env.example .env, set the key, npm start: the first answer comes, with no stack trace', async () => {
  await copyFile(join(copy, '.env.example'), join(copy, '.env'));
  const env = await readFile(join(copy, '.env'), 'utf8');
  // "then set ANTHROPIC_API_KEY in .env" (the base URL points at our loopback fake instead of Anthropic).
  await writeFile(
    join(copy, '.env'),
    env.replace(/^ANTHROPIC_API_KEY=$/m, 'ANTHROPIC_API_KEY=sk-ant-test').replace(/^ANTHROPIC_BASE_URL=$/m, `ANTHROPIC_BASE_URL=${anthropic.url}`),
  );

  const child = spawn('npm', ['start'], { cwd: copy, env: { PATH: process.env.PATH ?? '', HOME: copy }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end('hello from the quick start\n');
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

  expect({ code, stderr: stderr.includes('    at ') ? stderr : '' }).toEqual({ code: 0, stderr: '' });
  // Piped: stderr holds only readable warnings from its first line, no JSON log line (the logs went to the file).
  expect(stderr.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
  expect(stdout).toContain('you said: hello from the quick start');
  expect(anthropic.requests.map((request) => request.status)).toEqual([200]);
}, 60_000);

it('a bad value in .env is one line naming the variable, not a stack trace', async () => {
  await writeFile(join(copy, '.env'), 'ANTHROPIC_API_KEY=sk-ant-test\nLOG_LEVEL=loud\n');
  const child = spawn('npm', ['start', '--silent'], { cwd: copy, env: { PATH: process.env.PATH ?? '', HOME: copy }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(2);
  expect(stderr.trim()).toBe('skillbot: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got "loud"); see .env.example.');
}, 60_000);
