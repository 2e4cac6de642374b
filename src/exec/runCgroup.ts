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
  | {
      kind: 'cgroup';
      version: 1;
      /** The folders, in the memory and pids hierarchies, under which runs go. */
      memoryRunsDir: string;
      pidsRunsDir: string;
      /** In the cpu hierarchy (and cpuacct's, where it is mounted apart), when the bot may write there: the CPU bound. */
      cpuRunsDir?: string;
      cpuacctRunsDir?: string;
    }
  | { kind: 'rlimits'; /** Why there is no cgroup per run. */ why: string };

export interface RunCgroup {
  /** Moves a process (before it forks) into the run's cgroup. */
  add(pid: number): Promise<void>;
  /** What the run ran into: the memory bound (the kernel killed in it) or the process bound (a fork refused). */
  hit(): { memory: boolean; processes: boolean };
  /** CPU time its processes used so far, in µs (where its CPU is bounded: the cpu controller counts it), else undefined. */
  cpuUsageUs(): number | undefined;
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

/** The folder under which runs go in the v1 hierarchy of `controller`, made if missing; or why there is none. */
function version1RunsDir(found: CgroupSources, all: Mount[], controller: string): string | { why: string } {
  const own = new RegExp(`^\\d+:(?:[^:]*,)?${controller}(?:,[^:]*)?:(\\/.*)$`, 'm').exec(found.selfCgroup)?.[1];
  const mount = all.find((entry) => entry.type === 'cgroup' && entry.superOptions.includes(controller));
  if (own === undefined || mount === undefined) return { why: `the host has no cgroup v1 ${controller} hierarchy either` };
  const runsDir = path.join(ownFolder(mount, own), RUNS);
  try {
    mkdirSync(runsDir, { recursive: true });
    sweepStaleRuns(runsDir);
    return runsDir;
  } catch (error) {
    return { why: `the bot may not make cgroups in the v1 ${controller} hierarchy (${runsDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/**
 * cgroup v1 has no delegation rule: whoever may make folders under the bot's memory and pids cgroups may bound runs.
 * The cpu hierarchy (and cpuacct's, on hosts that mount it apart, for the time used) is optional: without it runs
 * have no CPU quota, only RLIMIT_CPU.
 */
function version1(found: CgroupSources, all: Mount[]): BoundsMode | string {
  const memory = version1RunsDir(found, all, 'memory');
  if (typeof memory !== 'string') return memory.why;
  const pids = version1RunsDir(found, all, 'pids');
  if (typeof pids !== 'string') return pids.why;
  const cpu = version1RunsDir(found, all, 'cpu');
  const cpuacct = typeof cpu === 'string' ? version1RunsDir(found, all, 'cpuacct') : cpu;
  return {
    kind: 'cgroup',
    version: 1,
    memoryRunsDir: memory,
    pidsRunsDir: pids,
    ...(typeof cpu === 'string' ? { cpuRunsDir: cpu } : {}),
    ...(typeof cpuacct === 'string' && cpuacct !== cpu ? { cpuacctRunsDir: cpuacct } : {}),
  };
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

/** What a run's (or a service's) cgroup holds it to. */
export interface CgroupBounds {
  memoryBytes: number;
  maxProcesses: number;
  /** Percent of one CPU the whole group may use (cpu.max, cpu.cfs_quota_us); absent: no quota. */
  cpuPercent?: number;
}

/** The CFS period the quota is a share of: 100 ms, the kernel's default. */
const CPU_PERIOD_US = 100_000;
const cpuQuotaUs = (percent: number): number => Math.max(1000, Math.round((CPU_PERIOD_US * percent) / 100));

/** The folders of one run's cgroup, one per hierarchy on v1, one on v2. */
function folders(mode: Extract<BoundsMode, { kind: 'cgroup' }>, name: string, cpu: boolean) {
  if (mode.version === 2) {
    const dir = path.join(mode.runsDir, name);
    return { memory: dir, pids: dir, cpu: cpu ? dir : undefined, cpuacct: cpu ? dir : undefined };
  }
  const cpuDir = cpu && mode.cpuRunsDir !== undefined ? path.join(mode.cpuRunsDir, name) : undefined;
  const cpuacct = cpuDir === undefined ? undefined : mode.cpuacctRunsDir === undefined ? cpuDir : path.join(mode.cpuacctRunsDir, name);
  return { memory: path.join(mode.memoryRunsDir, name), pids: path.join(mode.pidsRunsDir, name), cpu: cpuDir, cpuacct };
}

/** Whether runs can get a CPU quota in this mode (v2: the cpu controller enabled for them, once, on first need). */
export function cpuBoundable(mode: Extract<BoundsMode, { kind: 'cgroup' }>): boolean {
  if (mode.version === 1) return mode.cpuRunsDir !== undefined;
  if (read(path.join(mode.runsDir, 'cgroup.subtree_control')).split(/\s+/).includes('cpu')) return true;
  try {
    const parent = path.dirname(mode.runsDir);
    if (!read(path.join(parent, 'cgroup.controllers')).split(/\s+/).includes('cpu')) return false;
    appendFileSync(path.join(parent, 'cgroup.subtree_control'), '+cpu');
    appendFileSync(path.join(mode.runsDir, 'cgroup.subtree_control'), '+cpu');
    return true;
  } catch {
    return false;
  }
}

function writeBounds(mode: Extract<BoundsMode, { kind: 'cgroup' }>, dirs: ReturnType<typeof folders>, bounds: CgroupBounds): void {
  if (mode.version === 2) {
    writeFileSync(path.join(dirs.memory, 'memory.max'), String(bounds.memoryBytes));
    // Swap would let a run hold more than memory.max of data; the host's swap is not the run's to use.
    if (existsSync(path.join(dirs.memory, 'memory.swap.max'))) writeFileSync(path.join(dirs.memory, 'memory.swap.max'), '0');
    if (dirs.cpu !== undefined && bounds.cpuPercent !== undefined) writeFileSync(path.join(dirs.cpu, 'cpu.max'), `${cpuQuotaUs(bounds.cpuPercent)} ${CPU_PERIOD_US}`);
  } else {
    writeFileSync(path.join(dirs.memory, 'memory.limit_in_bytes'), String(bounds.memoryBytes));
    // memory and swap together, at the same bound: no swap for the run (the file exists only where swap is accounted).
    if (existsSync(path.join(dirs.memory, 'memory.memsw.limit_in_bytes'))) writeFileSync(path.join(dirs.memory, 'memory.memsw.limit_in_bytes'), String(bounds.memoryBytes));
    if (dirs.cpu !== undefined && bounds.cpuPercent !== undefined) {
      writeFileSync(path.join(dirs.cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
      writeFileSync(path.join(dirs.cpu, 'cpu.cfs_quota_us'), String(cpuQuotaUs(bounds.cpuPercent)));
    }
  }
  writeFileSync(path.join(dirs.pids, 'pids.max'), String(bounds.maxProcesses));
}

/**
 * A cgroup for one run, bounded; throws when it cannot be made (the run is then refused, never run unbounded). A CPU
 * bound where the host gives no cpu controller is left to RLIMIT_CPU (the probe's line says so).
 */
export function createRunCgroup(mode: Extract<BoundsMode, { kind: 'cgroup' }>, bounds: CgroupBounds): RunCgroup {
  sequence += 1;
  const dirs = folders(mode, `run-${process.pid}-${sequence}`, bounds.cpuPercent !== undefined && cpuBoundable(mode));
  const made: string[] = [];
  try {
    for (const dir of new Set([dirs.memory, dirs.pids, dirs.cpu, dirs.cpuacct])) {
      if (dir === undefined) continue;
      mkdirSync(dir);
      made.push(dir);
    }
    writeBounds(mode, dirs, bounds);
  } catch (error) {
    [...made].reverse().forEach((dir) => rmdirSync(dir));
    throw error;
  }
  const counter = (file: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(read(file))?.[1] ?? 0);
  const oomKills = () => (mode.version === 2 ? counter(path.join(dirs.memory, 'memory.events'), 'oom_kill') : counter(path.join(dirs.memory, 'memory.oom_control'), 'oom_kill'));
  const cpuacct = dirs.cpuacct;
  return {
    // Joining a cgroup waits for an RCU grace period in the kernel (ms each): off the event loop, all at once.
    add: async (pid) => {
      await Promise.all(made.map((dir) => writeFile(path.join(dir, 'cgroup.procs'), String(pid))));
    },
    hit: () => ({ memory: oomKills() > 0, processes: counter(path.join(dirs.pids, 'pids.events'), 'max') > 0 }),
    cpuUsageUs: () =>
      cpuacct === undefined ? undefined : mode.version === 2 ? counter(path.join(cpuacct, 'cpu.stat'), 'usage_usec') : Math.round(Number(read(path.join(cpuacct, 'cpuacct.usage')) || 0) / 1000),
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
  const cpu = mode.version === 2 ? 'cpu.max its CPU where the cpu controller is delegated' : mode.cpuRunsDir === undefined ? 'no CPU quota (no cpu hierarchy the bot may write)' : 'cpu.cfs_quota_us its CPU';
  return `bounds per run as a whole: a cgroup v${mode.version} per run (${memoryFile} counts its processes and its tmpfs, pids.max its processes, ${cpu}) under ${where}`;
}
