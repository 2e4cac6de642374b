// The one sandbox plan, made once per executor and used by both ways of running in it: a run (executor.run) and a
// long-running service (executor.startService, a stdio MCP server). It fixes what every sandbox shares: the mode,
// the bounds (rlimits and the cgroup: memory, processes, CPU), the system mounts, the programs, the uids, the egress
// socket's place and the credentials' placeholders. What differs is only what each runs and for how long.
import { chownSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Credential } from '../config/credentialsSchema.ts';
import { placeholderOf } from './egressCredentials.mjs';
import type { SandboxLimits } from '../config/sandboxSettings.ts';
import { DEFAULT_LIMITS, tasksOfUid } from './limits.ts';
import type { RunOwner } from './runDirs.ts';
import { type BoundsMode, createRunCgroup, detectBoundsMode, type RunCgroup } from './runCgroup.ts';
import { systemMounts } from './sandbox.ts';
import { sandboxIds, type SandboxIds } from './sandboxIds.ts';

export interface SandboxPlanOptions {
  /** SCRIPT_SANDBOX: `bwrap` (default) runs every process in bubblewrap or refuses it; `off` runs it bare. */
  sandbox?: 'bwrap' | 'off';
  /** Resource bounds of each sandbox (SCRIPT_MAX_PROCESSES, SCRIPT_MEMORY_MB, SCRIPT_CPU_PERCENT, …). */
  limits?: Partial<SandboxLimits>;
  /** As root, sandboxes run as uids above this one (default 100000; sandboxIds.ts divides the range). */
  sandboxUidBase?: number;
  /** The bwrap program (a name on PATH or a path); tests point it at a missing or failing one. */
  bwrapPath?: string;
  /** The util-linux prlimit program that applies the limits. */
  prlimitPath?: string;
  /** The node that runs .js scripts and the network bridge (default: the bot's own). */
  nodePath?: string;
  /**
   * `auto` (default): where the host lets the bot make cgroups (a delegated v2 tree, or v1 hierarchies it may write)
   * each sandbox gets a cgroup bounding its memory (tmpfs included), processes and CPU as a whole; elsewhere the
   * rlimits alone apply. `off`: rlimits alone. A BoundsMode found elsewhere is taken as it is.
   */
  cgroups?: 'auto' | 'off' | BoundsMode;
}

export interface SandboxPlan {
  mode: 'bwrap' | 'off';
  limits: SandboxLimits;
  /** The host's system folders as bwrap arguments. */
  system: string[];
  bwrapPath: string;
  prlimitPath: string;
  nodePath: string;
  /** A cgroup per sandbox, or rlimits alone (and why). */
  bounds: BoundsMode;
  ids: SandboxIds;
}

const DEFAULT_UID_BASE = 100_000;

export function createSandboxPlan(options: SandboxPlanOptions): SandboxPlan {
  const mode = options.sandbox ?? 'bwrap';
  const root = process.getuid?.() === 0;
  const configured: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  // As root each sandbox has a uid of its own and the process bound is the sandbox's alone. Otherwise RLIMIT_NPROC
  // counts every task of the bot's user (a desktop runs hundreds), so the bound sits that far above them.
  const limits = root || mode === 'off' ? configured : { ...configured, maxProcesses: configured.maxProcesses + tasksOfUid(process.getuid?.() ?? -1) };
  const nodePath = options.nodePath ?? process.execPath;
  const bounds: BoundsMode =
    mode === 'off' || options.cgroups === 'off'
      ? { kind: 'rlimits', why: 'cgroups are turned off for this executor' }
      : typeof options.cgroups === 'object'
        ? options.cgroups
        : detectBoundsMode();
  return {
    mode,
    limits,
    system: mode === 'bwrap' ? systemMounts(nodePath) : [],
    bwrapPath: options.bwrapPath ?? 'bwrap',
    prlimitPath: options.prlimitPath ?? 'prlimit',
    nodePath,
    bounds,
    ids: sandboxIds(options.sandboxUidBase ?? DEFAULT_UID_BASE, { root, sandboxed: mode === 'bwrap' }),
  };
}

/** The sandbox's cgroup (memory, processes, CPU as `limits` say), where the plan has cgroups; throws when it cannot be made. */
export function sandboxCgroup(plan: SandboxPlan, limits: SandboxLimits): RunCgroup | undefined {
  if (plan.mode !== 'bwrap' || plan.bounds.kind !== 'cgroup') return undefined;
  return createRunCgroup(plan.bounds, {
    memoryBytes: limits.memoryBytes,
    maxProcesses: limits.maxProcesses,
    ...(limits.cpuPercent === undefined ? {} : { cpuPercent: limits.cpuPercent }),
  });
}

/** A networked sandbox's egress socket path, alone in a folder of its own (bound into the sandbox) its user may enter. */
export function egressSocketIn(root: string, owner: RunOwner | undefined): string {
  const dir = path.join(root, 'egress');
  mkdirSync(dir, { mode: 0o700 });
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  return path.join(dir, 'egress.sock');
}

/** What a sandbox holds for each credential: its placeholder, never its value (which only the egress proxy has). */
export function placeholders(credentials: readonly Credential[]): Record<string, string> {
  return Object.fromEntries(credentials.map((credential) => [credential.env, placeholderOf(credential.env)]));
}
