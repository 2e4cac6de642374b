import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

describe('what may run: only files inside the skill folder', () => {
  let skill: TempSkill;
  let outside: string;
  let marker: string;
  const run = (script: string) => createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script });

  beforeEach(async () => {
    skill = await makeSkill();
    // A script outside the skill that would leave a marker if it ever ran.
    outside = path.join(skill.root, 'outside');
    marker = path.join(skill.root, 'escaped');
    await mkdir(outside);
    await writeFile(path.join(outside, 'evil.sh'), `#!/bin/bash\ntouch ${JSON.stringify(marker)}\n`, { mode: 0o755 });
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('refuses a script symlinked to a file outside the skill folder', async () => {
    await mkdir(path.join(skill.dir, 'scripts'));
    await symlink(path.join(outside, 'evil.sh'), path.join(skill.dir, 'scripts', 'link.sh'));
    const result = await run('scripts/link.sh');
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/outside the skill folder/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a script in a skill subfolder that is a symlink to outside', async () => {
    await symlink(outside, path.join(skill.dir, 'scripts'));
    const result = await run('scripts/evil.sh');
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/outside the skill folder/);
    expect(existsSync(marker)).toBe(false);
  });

  it('runs a symlink that stays inside the skill folder', async () => {
    await skill.write('scripts/real.sh', '#!/bin/bash\necho inside\n');
    await symlink(path.join(skill.dir, 'scripts', 'real.sh'), path.join(skill.dir, 'scripts', 'alias.sh'));
    const result = await run('scripts/alias.sh');
    expect(result).toMatchObject({ status: 'ok', stdout: 'inside\n' });
  });

  it('refuses ../ in the script path', async () => {
    const result = await run('../outside/evil.sh');
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/\.\./);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses ../ hidden in the middle of the path', async () => {
    await skill.write('scripts/ok.sh', '#!/bin/bash\necho ok\n');
    const result = await run('scripts/../../outside/evil.sh');
    expect(result.status).toBe('refused');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses an absolute script path, even one inside the skill folder', async () => {
    const inside = await skill.write('scripts/ok.sh', '#!/bin/bash\necho ok\n');
    for (const script of [path.join(outside, 'evil.sh'), inside]) {
      const result = await run(script);
      expect(result.status).toBe('refused');
      expect(result.reason).toMatch(/absolute/);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('answers a missing script with a refusal and a reason, not an exception', async () => {
    const result = await run('scripts/nope.sh');
    expect(result.status).toBe('refused');
    expect(result.exitCode).toBeNull();
    expect(result.reason).toMatch(/does not exist/);
  });

  it('answers a missing skill folder with a refusal', async () => {
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: path.join(skill.root, 'gone'), script: 'x.sh' });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/skill folder/);
  });

  it('refuses a folder given as the script', async () => {
    await skill.write('scripts/ok.sh', '#!/bin/bash\necho ok\n');
    const result = await run('scripts');
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/not a regular file/);
  });

  it('reports a non-zero exit as failed with its exit code and output', async () => {
    await skill.write('scripts/fail.sh', '#!/bin/bash\necho "partial"\necho "bad input" >&2\nexit 3\n');
    const result = await run('scripts/fail.sh');
    expect(result).toMatchObject({ status: 'failed', exitCode: 3, stdout: 'partial\n', stderr: 'bad input\n' });
    expect(result.reason).toMatch(/code 3/);
  });

  it('reports a script killed by a signal as failed with the signal', async () => {
    await skill.write('scripts/crash.sh', '#!/bin/bash\nkill -SEGV $$\n');
    const result = await run('scripts/crash.sh');
    expect(result).toMatchObject({ status: 'failed', exitCode: null, signal: 'SIGSEGV' });
  });

  it('refuses a malformed request instead of throwing', async () => {
    await skill.write('scripts/ok.sh', '#!/bin/bash\necho ok\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({
      skillDir: skill.dir,
      script: 'scripts/ok.sh',
      env: { 'BAD=NAME': 'x' },
    });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/env/);
  });
});
