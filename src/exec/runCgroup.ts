// A cgroup per run where the host lets the bot make them: memory bounds the whole run (its processes and its tmpfs
// pages alike) and pids its processes. A delegated cgroup v2 tree is used first; a cgroup v1 host whose memory and
// pids hierarchies the bot may write (root on most v1 hosts) serves the same way. Elsewhere the rlimits alone stay.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from './runDirs.ts';

/** How memory and processes are bounded for every run, found once per executor. */
export type BoundsMode =
  | { kind: 'cgroup'; version: 2; /** The folder under which each run gets a cgroup of its own. */ runsDir: string }
  | { kind: 'cgroup'; version: 1; /** The folders, in the memory and pids hierarchies, under which runs go. */ memoryRunsDir: string; pidsRunsDir: string }
  | { kind: 'rlimits'; /** Why there is no cgroup per run. */ why: string };

export interface RunCgroup {
  /** Moves a process (before it forks) into the run's cgroup. */
  add(pid: number): Promise<void>;
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

const RUNS = 'skillbot-runs';

interface Mount {
  /** The part of the hierarchy the mount shows (`/` unless the bot is in a cgroup namespace or bind mount). */
  root: string;
  point: string;
  type: string;
  superOptions: string[];
}

function mounts(mountinfo: string): Mount[] {
  return mountinfo
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields.includes('-'))
    .map((fields) => {
      const dash = fields.indexOf('-');
      return { root: fields[3] ?? '/', point: fields[4] ?? '', type: fields[dash + 1] ?? '', superOptions: (fields[dash + 3] ?? '').split(',') };
    });
}

/** The folder of the bot's own cgroup in a hierarchy mounted at `mount`. */
const ownFolder = (mount: Mount, own: string): string => path.join(mount.point, path.relative(mount.root, own));

/**
 * Finds where runs can get cgroups: first the bot's own cgroup v2 folder, then the v1 memory and pids hierarchies.
 * Any step refused means the bot may not make cgroups there: the next way, and at last rlimits, with every reason.
 */
export function detectBoundsMode(sources: CgroupSources | (() => CgroupSources) = readSources): BoundsMode {
  let found: CgroupSources;
  try {
    found = typeof sources === 'function' ? sources() : sources;
  } catch (error) {
    return { kind: 'rlimits', why: `the cgroups of the bot cannot be read (${(error as Error).message})` };
  }
  const all = mounts(found.mountinfo);
  const v2 = version2(found, all);
  if (typeof v2 !== 'string') return v2;
  const v1 = version1(found, all);
  if (typeof v1 !== 'string') return v1;
  return { kind: 'rlimits', why: `${v2}; ${v1}` };
}

/**
 * The bot moves into a leaf of its own (`skillbot-bot`, as a v2 cgroup with processes may not hand controllers
 * down), enables memory and pids for its children, and makes `skillbot-runs` whose children are the runs.
 */
function version2(found: CgroupSources, all: Mount[]): BoundsMode | string {
  const own = /^0::(\/.*)$/m.exec(found.selfCgroup)?.[1];
  const mount = all.find((entry) => entry.type === 'cgroup2');
  if (own === undefined || mount === undefined) return 'the host has no cgroup v2 tree';
  const dir = ownFolder(mount, own);
  const controllers = read(path.join(dir, 'cgroup.controllers')).split(/\s+/);
  const missing = ['memory', 'pids'].filter((name) => !controllers.includes(name));
  if (missing.length > 0) {
    return `the bot's cgroup v2 (${dir}) is not given the ${missing.join(' and ')} controller${missing.length > 1 ? 's' : ''} (cgroup v1 holds them, or they are not delegated)`;
  }
  try {
    const enabled = read(path.join(dir, 'cgroup.subtree_control')).split(/\s+/);
    if (!(enabled.includes('memory') && enabled.includes('pids'))) {
      const leaf = path.join(dir, 'skillbot-bot');
      mkdirSync(leaf, { recursive: true });
      writeFileSync(path.join(leaf, 'cgroup.procs'), String(found.pid));
      appendFileSync(path.join(dir, 'cgroup.subtree_control'), '+memory +pids');
    }
    const runsDir = path.join(dir, RUNS);
    mkdirSync(runsDir, { recursive: true });
    appendFileSync(path.join(runsDir, 'cgroup.subtree_control'), '+memory +pids');
    sweepStaleRuns(runsDir);
    return { kind: 'cgroup', version: 2, runsDir };
  } catch (error) {
    return `the bot's cgroup v2 (${dir}) is not delegated to it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

/** cgroup v1 has no delegation rule: whoever may make folders under the bot's memory and pids cgroups may bound runs. */
function version1(found: CgroupSources, all: Mount[]): BoundsMode | string {
  const dirs: string[] = [];
  for (const controller of ['memory', 'pids']) {
    const own = new RegExp(`^\\d+:(?:[^:]*,)?${controller}(?:,[^:]*)?:(\\/.*)$`, 'm').exec(found.selfCgroup)?.[1];
    const mount = all.find((entry) => entry.type === 'cgroup' && entry.superOptions.includes(controller));
    if (own === undefined || mount === undefined) return `the host has no cgroup v1 ${controller} hierarchy either`;
    const runsDir = path.join(ownFolder(mount, own), RUNS);
    try {
      mkdirSync(runsDir, { recursive: true });
      sweepStaleRuns(runsDir);
    } catch (error) {
      return `the bot may not make cgroups in the v1 ${controller} hierarchy (${runsDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
    dirs.push(runsDir);
  }
  return { kind: 'cgroup', version: 1, memoryRunsDir: dirs[0] as string, pidsRunsDir: dirs[1] as string };
}

/** Cgroups of runs whose bot died before removing them (named run-<bot pid>-<n>): empty ones go; a busy one stays. */
function sweepStaleRuns(runsDir: string): void {
  for (const entry of readdirSync(runsDir)) {
    const owner = Number(/^run-(\d+)-\d+$/.exec(entry)?.[1]);
    if (!Number.isInteger(owner) || owner === process.pid || isProcessAlive(owner)) continue;
    try {
      rmdirSync(path.join(runsDir, entry));
    } catch {
      // Still holds processes (the kernel refuses): left as it is.
    }
  }
}

let sequence = 0;

/** A cgroup for one run, bounded; throws when it cannot be made (the run is then refused, never run unbounded). */
export function createRunCgroup(mode: Extract<BoundsMode, { kind: 'cgroup' }>, bounds: { memoryBytes: number; maxProcesses: number }): RunCgroup {
  sequence += 1;
  const name = `run-${process.pid}-${sequence}`;
  // v2: one folder holds both bounds; v1: a folder in each hierarchy.
  const memoryDir = path.join(mode.version === 2 ? mode.runsDir : mode.memoryRunsDir, name);
  const pidsDir = mode.version === 2 ? memoryDir : path.join(mode.pidsRunsDir, name);
  const made: string[] = [];
  const removeNow = () => [...made].reverse().forEach((dir) => rmdirSync(dir));
  try {
    for (const dir of new Set([memoryDir, pidsDir])) {
      mkdirSync(dir);
      made.push(dir);
    }
    if (mode.version === 2) {
      writeFileSync(path.join(memoryDir, 'memory.max'), String(bounds.memoryBytes));
      // Swap would let a run hold more than memory.max of data; the host's swap is not the run's to use.
      if (existsSync(path.join(memoryDir, 'memory.swap.max'))) writeFileSync(path.join(memoryDir, 'memory.swap.max'), '0');
    } else {
      writeFileSync(path.join(memoryDir, 'memory.limit_in_bytes'), String(bounds.memoryBytes));
      // memory and swap together, at the same bound: no swap for the run (the file exists only where swap is accounted).
      if (existsSync(path.join(memoryDir, 'memory.memsw.limit_in_bytes'))) writeFileSync(path.join(memoryDir, 'memory.memsw.limit_in_bytes'), String(bounds.memoryBytes));
    }
    writeFileSync(path.join(pidsDir, 'pids.max'), String(bounds.maxProcesses));
  } catch (error) {
    removeNow();
    throw error;
  }
  const counter = (file: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(read(file))?.[1] ?? 0);
  const oomKills = () => (mode.version === 2 ? counter(path.join(memoryDir, 'memory.events'), 'oom_kill') : counter(path.join(memoryDir, 'memory.oom_control'), 'oom_kill'));
  return {
    // Joining a cgroup waits for an RCU grace period in the kernel (ms each): off the event loop, both at once.
    add: async (pid) => {
      await Promise.all(made.map((dir) => writeFile(path.join(dir, 'cgroup.procs'), String(pid))));
    },
    hit: () => ({ memory: oomKills() > 0, processes: counter(path.join(pidsDir, 'pids.events'), 'max') > 0 }),
    remove: async () => {
      // Its processes are dead, but the kernel may take a moment to let the folders go.
      for (const dir of [...made].reverse()) {
        for (let attempt = 0; attempt < 50; attempt += 1) {
          try {
            rmdirSync(dir);
            break;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }
    },
  };
}

/** One line for `doctor` and the probe. */
export function describeBoundsMode(mode: BoundsMode): string {
  if (mode.kind === 'rlimits') return `bounds per process (rlimits), not per run as a whole: ${mode.why}; see docs/security.md#bounds`;
  const [memoryFile, where] = mode.version === 2 ? ['memory.max', mode.runsDir] : ['memory.limit_in_bytes', `${mode.memoryRunsDir} and ${mode.pidsRunsDir}`];
  return `bounds per run as a whole: a cgroup v${mode.version} per run (${memoryFile} counts its processes and its tmpfs, pids.max its processes) under ${where}`;
}
