// A cgroup per run where the host delegates a cgroup v2 tree to the bot: memory.max bounds the whole run (its
// processes and its tmpfs pages alike) and pids.max its processes. Elsewhere the rlimits alone stay in force.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** How memory and processes are bounded for every run, found once per executor. */
export type BoundsMode =
  | { kind: 'cgroup'; /** The folder under which each run gets a cgroup of its own. */ runsDir: string }
  | { kind: 'rlimits'; /** Why there is no cgroup per run. */ why: string };

export interface RunCgroup {
  /** Moves a process (before it forks) into the run's cgroup. */
  add(pid: number): void;
  /** What the run ran into: the memory bound (the kernel killed in it) or the process bound (a fork refused). */
  hit(): { memory: boolean; processes: boolean };
  remove(): Promise<void>;
}

export interface CgroupSources {
  /** /proc/self/cgroup */
  selfCgroup: string;
  /** /proc/self/mountinfo */
  mountinfo: string;
  pid: number;
}

function readSources(): CgroupSources {
  return { selfCgroup: readFileSync('/proc/self/cgroup', 'utf8'), mountinfo: readFileSync('/proc/self/mountinfo', 'utf8'), pid: process.pid };
}

const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/**
 * Finds the bot's own cgroup v2 folder and makes it hold runs: the bot moves into a leaf of its own (`skillbot-bot`,
 * as a cgroup with processes may not hand controllers down), enables memory and pids for its children, and makes
 * `skillbot-runs` whose children are the runs. Any step refused means the tree is not delegated: rlimits.
 */
export function detectBoundsMode(sources: CgroupSources | (() => CgroupSources) = readSources): BoundsMode {
  let found: CgroupSources;
  try {
    found = typeof sources === 'function' ? sources() : sources;
  } catch (error) {
    return { kind: 'rlimits', why: `the cgroups of the bot cannot be read (${(error as Error).message})` };
  }
  const own = /^0::(\/.*)$/m.exec(found.selfCgroup)?.[1];
  const mount = found.mountinfo
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2')?.[4];
  if (own === undefined || mount === undefined) return { kind: 'rlimits', why: 'the host has no cgroup v2 tree (cgroup v1 or none)' };
  const dir = path.join(mount, own);
  const controllers = read(path.join(dir, 'cgroup.controllers')).split(/\s+/);
  const missing = ['memory', 'pids'].filter((name) => !controllers.includes(name));
  if (missing.length > 0) {
    return { kind: 'rlimits', why: `the bot's cgroup v2 (${dir}) is not given the ${missing.join(' and ')} controller${missing.length > 1 ? 's' : ''} (cgroup v1 holds them, or they are not delegated)` };
  }
  try {
    const enabled = read(path.join(dir, 'cgroup.subtree_control')).split(/\s+/);
    if (!(enabled.includes('memory') && enabled.includes('pids'))) {
      const leaf = path.join(dir, 'skillbot-bot');
      mkdirSync(leaf, { recursive: true });
      writeFileSync(path.join(leaf, 'cgroup.procs'), String(found.pid));
      appendFileSync(path.join(dir, 'cgroup.subtree_control'), '+memory +pids');
    }
    const runsDir = path.join(dir, 'skillbot-runs');
    mkdirSync(runsDir, { recursive: true });
    appendFileSync(path.join(runsDir, 'cgroup.subtree_control'), '+memory +pids');
    return { kind: 'cgroup', runsDir };
  } catch (error) {
    return { kind: 'rlimits', why: `the bot's cgroup v2 (${dir}) is not delegated to it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

let sequence = 0;

/** A cgroup for one run, bounded; throws when it cannot be made (the run is then refused, never run unbounded). */
export function createRunCgroup(runsDir: string, bounds: { memoryBytes: number; maxProcesses: number }): RunCgroup {
  sequence += 1;
  const dir = path.join(runsDir, `run-${process.pid}-${sequence}`);
  mkdirSync(dir);
  try {
    writeFileSync(path.join(dir, 'memory.max'), String(bounds.memoryBytes));
    // Swap would let a run hold more than memory.max of data; the host's swap is not the run's to use.
    if (existsSync(path.join(dir, 'memory.swap.max'))) writeFileSync(path.join(dir, 'memory.swap.max'), '0');
    writeFileSync(path.join(dir, 'pids.max'), String(bounds.maxProcesses));
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  const counter = (file: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(read(path.join(dir, file)))?.[1] ?? 0);
  return {
    add: (pid) => writeFileSync(path.join(dir, 'cgroup.procs'), String(pid)),
    hit: () => ({ memory: counter('memory.events', 'oom_kill') > 0, processes: counter('pids.events', 'max') > 0 }),
    remove: async () => {
      // Its processes are dead, but the kernel may take a moment to let the folder go.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        try {
          rmdirSync(dir);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
  };
}

/** One line for `doctor` and the probe. */
export function describeBoundsMode(mode: BoundsMode): string {
  return mode.kind === 'cgroup'
    ? `bounds per run as a whole: a cgroup v2 per run (memory.max counts its processes and its tmpfs, pids.max its processes) under ${mode.runsDir}`
    : `bounds per process (rlimits), not per run as a whole: ${mode.why}; see docs/security.md#bounds`;
}
