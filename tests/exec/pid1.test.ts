// The bot as PID 1 without an init (issue 19): timed-out runs must leave no zombies behind, or the sandbox uids run
// out of processes ("Can't fork"). The bot runs as PID 1 of a PID namespace of its own (unshare --pid --fork).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSkill, type TempSkill } from './skillFolder.ts';

describe('the bot as PID 1', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
    await skill.write('scripts/hang.sh', '#!/bin/sh\nsleep 30 &\nsleep 30\n');
    await skill.write('scripts/hello.sh', '#!/bin/sh\necho next run\n');
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('leaves 0 zombies after 100 timed-out runs, and the next run starts', async () => {
    const bot = spawn(
      'unshare',
      ['--pid', '--fork', '--mount-proc', process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'pid1Bot.ts'), skill.dir, '100'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    bot.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    bot.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => bot.once('exit', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out) as { pid: number; timeouts: number; zombies: number; next: { status: string; stdout: string } };
    expect(report.pid).toBe(1);
    expect(report.timeouts).toBe(100);
    expect(report.zombies).toBe(0);
    expect(report.next).toMatchObject({ status: 'ok', stdout: 'next run\n' });
  }, 120_000);
});
