// Run folders a bot left when it died mid-run (they hold skill copies and people's files) go when the next
// executor starts; those of a bot still running stay.
import { spawnSync } from 'node:child_process';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';

const exists = (dir: string) => stat(dir).then(() => true, () => false);

describe('stale run folders', () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function runFolder(name: string, ageMs = 0): Promise<string> {
    const dir = path.join(os.tmpdir(), name);
    await mkdir(path.join(dir, 'skill'), { recursive: true });
    await writeFile(path.join(dir, 'skill', 'SKILL.md'), 'a copy of a skill\n');
    const then = new Date(Date.now() - ageMs);
    await utimes(dir, then, then);
    made.push(dir);
    return dir;
  }

  it('are swept at executor start: a dead bot\'s and very old ones, never a live bot\'s', async () => {
    // The pid of a process that has exited: its bot is gone.
    const dead = spawnSync('true').pid;
    const tag = Math.random().toString(36).slice(2, 8);
    const ofDeadBot = await runFolder(`skillbot-run-${dead}-${tag}a`);
    const ofLiveBot = await runFolder(`skillbot-run-1-${tag}b`);
    const ancient = await runFolder(`skillbot-run-${tag}c`, 7 * 60 * 60 * 1000);
    createExecutor({ timeoutMs: 1000, sandbox: 'off' });
    expect(await exists(ofDeadBot)).toBe(false);
    expect(await exists(ancient)).toBe(false);
    expect(await exists(ofLiveBot)).toBe(true);
  });
});
