// Finds out once, with a tiny real run, whether bubblewrap can sandbox skill processes here, and if not, why and
// what the operator should do about it.
import { execa } from 'execa';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describeLimits, prlimitArgs, type SandboxLimits } from './limits.ts';
import { createRunDirs, removeRunDirs, type RunOwner } from './runDirs.ts';
import { bwrapArgs, sandboxEnv } from './sandbox.ts';
import type { SandboxStatus } from './types.ts';

export interface ProbeOptions {
  /** A program name (looked up on PATH) or an absolute path. */
  bwrapPath: string;
  prlimitPath: string;
  limits: SandboxLimits;
  system: string[];
  /** The sandbox user when the bot runs as root (the first slot's). */
  owner?: RunOwner;
}

const PROBE_TIMEOUT_MS = 10_000;

export const USERNS_FIX =
  'user namespaces are blocked here: on Ubuntu 24.04+ install an AppArmor profile for bwrap or set sysctl ' +
  'kernel.apparmor_restrict_unprivileged_userns=0; in Docker run with --security-opt seccomp=unconfined (or a ' +
  'seccomp profile that allows clone/unshare of user namespaces); see docs/security.md';

/** The absolute path of `program` on `searchPath`, or undefined. An absolute or relative path is taken as it is. */
export function resolveProgram(program: string, searchPath: string | undefined): string | undefined {
  if (program.includes('/')) return executable(path.resolve(program)) ? path.resolve(program) : undefined;
  for (const dir of (searchPath ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = path.join(dir, program);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs `true` inside exactly the sandbox a skill gets (limits, uid, namespaces, mounts). Never throws. */
export async function probeSandbox(options: ProbeOptions): Promise<SandboxStatus> {
  const unusable = (problem: string, fix: string): SandboxStatus => ({ mode: 'bwrap', usable: false, problem, fix });
  const bwrap = resolveProgram(options.bwrapPath, process.env.PATH);
  if (bwrap === undefined) {
    return unusable(
      `bubblewrap ("${options.bwrapPath}") was not found`,
      'install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap); see docs/security.md',
    );
  }
  const prlimit = resolveProgram(options.prlimitPath, process.env.PATH);
  if (prlimit === undefined) {
    return unusable(`prlimit ("${options.prlimitPath}") was not found`, 'install util-linux, which provides prlimit; see docs/security.md');
  }
  let dirs;
  try {
    dirs = createRunDirs(options.owner);
    const skillDir = path.join(dirs.root, 'skill');
    mkdirSync(skillDir, { mode: 0o755 });
    const layout = { skills: [{ id: 'probe', dir: skillDir }], cwd: '/skills/probe', home: dirs.home, tmp: dirs.tmp, passwd: dirs.passwd, group: dirs.group, network: false };
    const result = await execa(prlimit, [...prlimitArgs(options.limits), '--', bwrap, ...bwrapArgs(layout, options.system), '--', 'true'], {
      env: sandboxEnv({}, {}, false),
      extendEnv: false,
      reject: false,
      timeout: PROBE_TIMEOUT_MS,
      stdin: 'ignore',
      ...(options.owner === undefined ? {} : { uid: options.owner.uid, gid: options.owner.gid }),
    });
    if (result.exitCode === 0) {
      return { mode: 'bwrap', usable: true, isolates: isolation(options) };
    }
    const detail = `${result.stderr}`.trim().split('\n').at(-1) ?? '';
    const said = detail === '' ? (result.shortMessage ?? `exit ${result.exitCode}`) : detail;
    if (/uid map|gid map|RTM_NEWADDR|creating new namespace|No permissions|Operation not permitted|clone|unshare/i.test(said)) {
      return unusable(`bwrap cannot create its namespaces (${said})`, USERNS_FIX);
    }
    return unusable(`a test run of bwrap failed (${said})`, 'run `skillbot doctor` and see docs/security.md');
  } catch (error) {
    return unusable(`a test run of bwrap could not start (${(error as Error).message})`, 'see docs/security.md');
  } finally {
    if (dirs !== undefined) await removeRunDirs(dirs);
  }
}

function isolation(options: ProbeOptions): string[] {
  return [
    'own user, pid, ipc, uts, cgroup and network namespaces (network only for skills the world lists)',
    'read-only /usr and system libraries, a minimal /etc, no host /home, /root, /run, /tmp or bot folder',
    'its skill folder read-only as the working directory, a private HOME and TMPDIR',
    'all capabilities dropped',
    options.owner === undefined ? "the bot's own uid" : `an unprivileged uid (${options.owner.uid} and up, one per slot)`,
    describeLimits(options.limits),
  ];
}
