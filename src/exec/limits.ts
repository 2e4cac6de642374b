// The resource bounds of one sandbox, applied with util-linux prlimit right before bwrap (prlimit sets them on
// itself, then execs bwrap: no extra process, and every process in the sandbox inherits them).
import { readdirSync, readFileSync } from 'node:fs';
import type { SandboxLimits } from '../config/sandboxSettings.ts';

/**
 * Address space allowed beyond memoryBytes (bounds shared mappings too, which RLIMIT_DATA does not count). 16 GiB:
 * V8 reserves about 10 GiB of inaccessible address space (guard regions) for each WebAssembly memory, and Node's
 * fetch parses HTTP with WebAssembly, so with less every `fetch` in a skill died "Cannot allocate Wasm memory".
 * Reserved, never-writable space costs no memory; RLIMIT_DATA (and the run's cgroup) still bound what is used.
 */
export const ADDRESS_SPACE_HEADROOM = 16 * 1024 * 1024 * 1024;

export const DEFAULT_LIMITS: SandboxLimits = {
  maxProcesses: 256,
  memoryBytes: 1024 * 1024 * 1024,
  maxFileBytes: 100 * 1024 * 1024,
  cpuSeconds: 60,
  maxOpenFiles: 1024,
  homeBytes: 256 * 1024 * 1024,
  tmpBytes: 256 * 1024 * 1024,
  shmBytes: 64 * 1024 * 1024,
};

/** The bound a full sandbox mount hit, in the words a person (and the model) reads in the run's reason. */
export function mountBound(mount: string, limits: SandboxLimits): string {
  const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
  if (mount === '/tmp') return `its /tmp (TMPDIR) is full: the ${mib(limits.tmpBytes)} bound (SCRIPT_TMP_MB)`;
  if (mount === '/dev/shm') return `its /dev/shm is full: the ${mib(limits.shmBytes)} bound`;
  return `its HOME (${mount}) is full: the ${mib(limits.homeBytes)} bound (SCRIPT_HOME_MB)`;
}

/**
 * prlimit's options, soft and hard limit alike, so a script cannot raise them again. `perUid: false` leaves the
 * process count to the run's cgroup: RLIMIT_NPROC counts every process of the uid, and two chats may share one.
 */
export function prlimitArgs(limits: SandboxLimits, { perUid = true }: { perUid?: boolean } = {}): string[] {
  return [
    ...(perUid ? [`--nproc=${limits.maxProcesses}`] : []),
    `--data=${limits.memoryBytes}`,
    `--as=${limits.memoryBytes + ADDRESS_SPACE_HEADROOM}`,
    `--fsize=${limits.maxFileBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--nofile=${limits.maxOpenFiles}`,
  ];
}

/** One line for `doctor` and the docs. */
export function describeLimits(limits: SandboxLimits): string {
  const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
  const quota = limits.cpuPercent === undefined ? '' : ` (at most ${limits.cpuPercent}% of a CPU at once, where cgroups allow)`;
  return `at most ${limits.maxProcesses} processes, ${mib(limits.memoryBytes)} of memory per process, files up to ${mib(limits.maxFileBytes)}, ${limits.cpuSeconds} s of CPU${quota}, ${limits.maxOpenFiles} open files; HOME ${mib(limits.homeBytes)}, /tmp ${mib(limits.tmpBytes)} and /dev/shm ${mib(limits.shmBytes)}, each a sized tmpfs`;
}

/**
 * Tasks (processes and threads) the given uid runs now. RLIMIT_NPROC counts them all: when the bot is not root it
 * cannot give the sandbox a uid of its own, so the bound is set this far above what the user already runs.
 */
export function tasksOfUid(uid: number): number {
  let tasks = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue;
    }
    const owner = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (owner !== String(uid)) continue;
    tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return tasks;
}
