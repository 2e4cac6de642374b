// The per-run cgroup of issue 19. This CI host has cgroup v1 controllers (no delegated v2 tree), so the kernel's
// side (memory.max killing, pids.max refusing) cannot run here: what is checked is that the mode is found and told
// honestly, and, on a folder laid out like a delegated cgroup v2 tree, what the bot writes there and that a run is
// held until it is moved in.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { describeBoundsMode, detectBoundsMode } from '../../src/exec/runCgroup.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

const MOUNTINFO = (mount: string) => `31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n40 31 0:36 / ${mount} rw,nosuid - cgroup2 cgroup2 rw\n`;

describe('bounds per run as a whole', () => {
  let tree: string;
  let skill: TempSkill;
  beforeEach(async () => {
    tree = await mkdtemp(path.join(os.tmpdir(), 'skillbot-cgroup-'));
    skill = await makeSkill();
  });
  afterEach(async () => {
    await rm(tree, { recursive: true, force: true });
    await skill.remove();
  });

  it('are rlimits on a host whose cgroup v2 holds no memory or pids controller, and doctor is told why', () => {
    const mode = detectBoundsMode({ selfCgroup: '4:memory:/x\n0::/\n', mountinfo: MOUNTINFO(tree), pid: 4242 });
    expect(mode.kind).toBe('rlimits');
    expect(describeBoundsMode(mode)).toMatch(/^bounds per process \(rlimits\), not per run as a whole: .*memory and pids controllers/);
    expect(detectBoundsMode({ selfCgroup: '4:memory:/x\n', mountinfo: '', pid: 1 })).toMatchObject({ kind: 'rlimits', why: expect.stringMatching(/no cgroup v2/) });
  });

  it('are a cgroup per run on a delegated tree: the bot moves into a leaf, each run gets memory.max and pids.max', async () => {
    const own = path.join(tree, 'bot.service');
    await mkdir(own);
    await writeFile(path.join(own, 'cgroup.controllers'), 'cpu memory pids\n');
    await writeFile(path.join(own, 'cgroup.subtree_control'), '');
    const mode = detectBoundsMode({ selfCgroup: '0::/bot.service\n', mountinfo: MOUNTINFO(tree), pid: 4242 });
    expect(mode).toEqual({ kind: 'cgroup', runsDir: path.join(own, 'skillbot-runs') });
    expect(await readFile(path.join(own, 'skillbot-bot', 'cgroup.procs'), 'utf8')).toBe('4242');
    expect(await readFile(path.join(own, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids');

    // Runs through the real executor and bwrap: held until "moved" (its pid written), then run. (Removing the
    // run's folder after it is the kernel's part: a plain folder holding files cannot be removed like a cgroup.)
    const seen: string[] = [];
    await skill.write('scripts/hello.sh', '#!/bin/sh\necho hello\n');
    const runsDir = path.join(own, 'skillbot-runs');
    const executor = createExecutor({ timeoutMs: 20_000, cgroups: mode, limits: { memoryBytes: 512 * 1024 * 1024, maxProcesses: 64 } });
    const watch = setInterval(() => {
      void readdir(runsDir).then(async (entries) => {
        for (const entry of entries.filter((name) => name.startsWith('run-'))) {
          const dir = path.join(runsDir, entry);
          const files = await Promise.all(['memory.max', 'pids.max', 'cgroup.procs'].map((name) => readFile(path.join(dir, name), 'utf8').catch(() => '')));
          seen.push(files.join('|'));
        }
      });
    }, 5);
    const result = await executor.run({ skillDir: skill.dir, script: 'scripts/hello.sh' });
    clearInterval(watch);
    expect(result).toMatchObject({ status: 'ok', stdout: 'hello\n' });
    expect(seen.some((line) => /^536870912\|64\|\d+$/.test(line))).toBe(true);
  });
});
