// The per-run cgroup of issue 19. On this CI host (root, memory and pids on cgroup v1) the kernel's side runs for
// real: a run that fills memory with many processes or a big /tmp is stopped at the bound for the whole run, and
// one that spins is held to SCRIPT_CPU_PERCENT (issue 37: the cpu hierarchy, cpu.cfs_quota_us). A
// delegated cgroup v2 tree cannot be made here, so that mode is checked on a folder laid out like one: what the
// bot writes there and that a run is held until it is moved in.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { type BoundsMode, cpuBoundable, createRunCgroup, describeBoundsMode, detectBoundsMode } from '../../src/exec/runCgroup.ts';
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
    // A run's cgroup left by a bot that died goes at start; one of a live bot stays.
    const stale = path.join(own, 'skillbot-runs', 'run-4194303-7');
    const live = path.join(own, 'skillbot-runs', `run-${process.pid}-999`);
    await mkdir(stale, { recursive: true });
    await mkdir(live);
    const mode = detectBoundsMode({ selfCgroup: '0::/bot.service\n', mountinfo: MOUNTINFO(tree), pid: 4242 });
    expect(mode).toEqual({ kind: 'cgroup', version: 2, runsDir: path.join(own, 'skillbot-runs') });
    expect(await readdir(path.join(own, 'skillbot-runs'))).toEqual(expect.arrayContaining([`run-${process.pid}-999`]));
    expect(await readdir(path.join(own, 'skillbot-runs'))).not.toContain('run-4194303-7');
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

  it('give a run a CPU quota on a delegated tree: the cpu controller enabled for runs on first need, cpu.max written', async () => {
    const own = path.join(tree, 'bot.service');
    await mkdir(own);
    await writeFile(path.join(own, 'cgroup.controllers'), 'cpu memory pids\n');
    await writeFile(path.join(own, 'cgroup.subtree_control'), '');
    const mode = detectBoundsMode({ selfCgroup: '0::/bot.service\n', mountinfo: MOUNTINFO(tree), pid: 4242 });
    if (mode.kind !== 'cgroup') throw new Error('expected a cgroup mode');
    createRunCgroup(mode, { memoryBytes: 64 * 1024 * 1024, maxProcesses: 8, cpuPercent: 25 });
    const runs = path.join(own, 'skillbot-runs');
    const [made] = (await readdir(runs)).filter((name) => name.startsWith(`run-${process.pid}-`));
    expect(await readFile(path.join(runs, made ?? '', 'cpu.max'), 'utf8')).toBe('25000 100000');
    expect(await readFile(path.join(own, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids+cpu');
    expect(await readFile(path.join(runs, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids+cpu');
    await rm(path.join(runs, made ?? ''), { recursive: true });
  });
});

const host = detectBoundsMode();
// CI runs as root on a host whose cgroups the bot may write: there the bound must hold, never be skipped.
if (process.env.CI === 'true' && host.kind !== 'cgroup') throw new Error(`CI needs a cgroup per run here, but: ${describeBoundsMode(host)}`);

describe.runIf(host.kind === 'cgroup')('bounds per run as a whole, by this host\'s kernel', () => {
  const MIB = 1024 * 1024;
  const BOUND = 256 * MIB;
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
  });
  afterEach(async () => {
    await skill.remove();
  });

  /** The most memory any run's cgroup held while `work` ran, as the kernel counted it (read every 10 ms). */
  async function peakWhile<T>(mode: BoundsMode, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
    if (mode.kind !== 'cgroup') throw new Error('no cgroup mode');
    const runsDir = mode.version === 2 ? mode.runsDir : mode.memoryRunsDir;
    const file = mode.version === 2 ? 'memory.peak' : 'memory.max_usage_in_bytes';
    let peak = 0;
    const watch = setInterval(() => {
      void readdir(runsDir).then(async (entries) => {
        for (const entry of entries.filter((name) => name.startsWith('run-'))) {
          const used = Number(await readFile(path.join(runsDir, entry, file), 'utf8').catch(() => '0'));
          peak = Math.max(peak, used);
        }
      });
    }, 10);
    try {
      return { result: await work(), peak };
    } finally {
      clearInterval(watch);
    }
  }

  it('stop six processes of 100 MiB each at 256 MiB for the whole run, and say which bound', async () => {
    await skill.write(
      'scripts/fill.py',
      [
        'import os, time',
        'kids = []',
        'for _ in range(6):',
        '    pid = os.fork()',
        '    if pid == 0:',
        '        block = bytearray(100 * 1024 * 1024)',
        '        for at in range(0, len(block), 4096): block[at] = 1',
        '        time.sleep(5)',
        '        os._exit(0)',
        '    kids.append(pid)',
        'print([os.waitpid(kid, 0)[1] for kid in kids])',
        '',
      ].join('\n'),
    );
    const executor = createExecutor({ timeoutMs: 30_000, limits: { memoryBytes: BOUND } });
    const { result, peak } = await peakWhile(host, () => executor.run({ skillDir: skill.dir, script: 'scripts/fill.py' }));
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/memory bound \(256 MiB for the whole run.*SCRIPT_MEMORY_MB/) });
    // Stopped as a whole when the kernel killed one: not left to sleep its 5 s.
    expect(result.durationMs).toBeLessThan(4000);
    expect(peak).toBeGreaterThan(150 * MIB);
    expect(peak).toBeLessThanOrEqual(BOUND);
  });

  it("hold a script and what it starts in the run's cgroup from its first line, networked or not", async () => {
    await skill.write('scripts/where.sh', '#!/bin/sh\ngrep -E ":(memory|pids):" /proc/self/cgroup\n(grep -E ":(memory|pids):" /proc/self/cgroup)\n');
    const executor = createExecutor({ timeoutMs: 30_000 });
    for (const network of [false, true]) {
      const result = await executor.run({ skillDir: skill.dir, script: 'scripts/where.sh', network });
      expect(result.status).toBe('ok');
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(4);
      for (const line of lines) expect(line).toMatch(/^\d+:(memory|pids):.*\/skillbot-runs\/run-\d+-\d+$/);
    }
  });

  it('count a /tmp filled past the memory bound against the run, tmpfs pages and all', async () => {
    await skill.write('scripts/tmpfill.sh', '#!/bin/sh\nfor part in 1 2 3 4; do head -c 90000000 /dev/zero > /tmp/fill$part; done\necho wrote\nsleep 5\n');
    // /tmp may hold 1 GiB on its own, the run 256 MiB in all: the run's bound is the one that holds.
    const executor = createExecutor({ timeoutMs: 30_000, limits: { memoryBytes: BOUND, tmpBytes: 1024 * MIB } });
    const { result, peak } = await peakWhile(host, () => executor.run({ skillDir: skill.dir, script: 'scripts/tmpfill.sh' }));
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/memory bound/) });
    expect(peak).toBeLessThanOrEqual(BOUND);
  });

  it.runIf(host.kind === 'cgroup' && cpuBoundable(host))('hold a run that spins to SCRIPT_CPU_PERCENT of a CPU', async () => {
    // The kernel's count of the script's CPU time (process_time) over 2 s of its own wall time: about a fifth.
    await skill.write('scripts/spin.py', 'import time\nstart = time.monotonic()\ncpu = time.process_time()\nwhile time.monotonic() - start < 2: pass\nprint(time.process_time() - cpu, time.monotonic() - start)\n');
    const executor = createExecutor({ timeoutMs: 30_000, limits: { cpuPercent: 20 } });
    const result = await executor.run({ skillDir: skill.dir, script: 'scripts/spin.py' });
    expect(result.status).toBe('ok');
    const [cpu, wall] = result.stdout.trim().split(' ').map(Number);
    expect(cpu).toBeLessThanOrEqual(0.2 * (wall ?? 0) * 1.5);
    expect(cpu).toBeGreaterThan(0.2 * (wall ?? 0) * 0.3);
  });
});
