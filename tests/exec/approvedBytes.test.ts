// What runs is exactly the approved bytes: a private copy, hashed and compared, mounted read-only.
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

/** A simple full-content folder hash: sha256 over sorted relative paths and contents (links by their text). */
async function hashFolder(dir: string): Promise<{ hash: string } | { error: string }> {
  const hash = createHash('sha256');
  const walk = async (rel: string): Promise<void> => {
    const entries = (await readdir(path.join(dir, rel))).sort();
    for (const name of entries) {
      const child = rel === '' ? name : `${rel}/${name}`;
      const info = await lstat(path.join(dir, child));
      if (info.isDirectory()) await walk(child);
      else if (info.isSymbolicLink()) hash.update(`l\0${child}\0${await readlink(path.join(dir, child))}\0`);
      else hash.update(`f\0${child}\0`).update(await readFile(path.join(dir, child))).update('\0');
    }
  };
  try {
    await walk('');
    return { hash: hash.digest('hex') };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('the run is bound to the approved bytes', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
    await skill.write('scripts/hello.sh', '#!/bin/bash\necho hello\n');
    await skill.write('.config/settings', 'mode=safe\n', { executable: false });
  });
  afterEach(async () => {
    await skill.remove();
  });

  const executor = () => createExecutor({ timeoutMs: 10_000, hashFolder });
  const approved = async () => {
    const hashed = await hashFolder(skill.dir);
    if ('error' in hashed) throw new Error(hashed.error);
    return hashed.hash;
  };

  it('runs when the skill still hashes to the approved value', async () => {
    const expectedHash = await approved();
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh', expectedHash });
    expect(result).toMatchObject({ status: 'ok', stdout: 'hello\n' });
  });

  it('refuses a run that names no approved hash', async () => {
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh' });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/no approved content hash/);
  });

  it('refuses a script swapped after approval (while the question was open), and runs nothing', async () => {
    const expectedHash = await approved();
    await skill.write('scripts/hello.sh', '#!/bin/bash\necho swapped\n');
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh', expectedHash });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/changed since it was approved.*ask again/);
    expect(result.stdout).toBe('');
  });

  it('refuses after an edit under a hidden folder', async () => {
    const expectedHash = await approved();
    await skill.write('.config/settings', 'mode=dangerous\n', { executable: false });
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh', expectedHash });
    expect(result.status).toBe('refused');
  });

  it('refuses an edit in a large file', async () => {
    await skill.write('assets/big.bin', 'a'.repeat(9 * 1024 * 1024), { executable: false });
    const expectedHash = await approved();
    await skill.write('assets/big.bin', `${'a'.repeat(9 * 1024 * 1024 - 1)}b`, { executable: false });
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh', expectedHash });
    expect(result.status).toBe('refused');
  });

  it('one run cannot rewrite another script of its skill: the next run still runs the approved bytes', async () => {
    await skill.write('scripts/rewrite.sh', '#!/bin/bash\necho "echo evil" >> scripts/hello.sh\nexit 0\n');
    const expectedHash = await approved();
    const first = await executor().run({ skillDir: skill.dir, script: 'scripts/rewrite.sh', expectedHash });
    expect(first.stderr).toMatch(/Read-only file system|Permission denied/);
    const second = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh', expectedHash });
    expect(second).toMatchObject({ status: 'ok', stdout: 'hello\n' });
  });

  it('refuses a skill holding a symlink that leads out', async () => {
    await symlink(path.join(skill.root, 'outside'), path.join(skill.dir, 'scripts', 'out'));
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/hello.sh', expectedHash: 'whatever' });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/scripts\/out.*outside the skill folder|leads nowhere/);
  });

  it('keeps a relative symlink that stays inside, and the copy hashes as the original', async () => {
    await symlink('hello.sh', path.join(skill.dir, 'scripts', 'alias.sh'));
    const expectedHash = await approved();
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/alias.sh', expectedHash });
    expect(result).toMatchObject({ status: 'ok', stdout: 'hello\n' });
  });

  it('refuses a skill larger than the bound', async () => {
    await skill.write('assets/big.bin', 'a'.repeat(2 * 1024 * 1024), { executable: false });
    const result = await createExecutor({ timeoutMs: 10_000, maxSkillBytes: 1024 * 1024 }).run({ skillDir: skill.dir, script: 'scripts/hello.sh' });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/larger than 1 MiB/);
  });
});
