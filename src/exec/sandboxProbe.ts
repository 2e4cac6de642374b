// Finds out once, with a tiny real run, whether bubblewrap can sandbox skill processes here, and if not, why and
// what the operator should do about it.
import { execa } from 'execa';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxLimits } from '../config/sandboxSettings.ts';
import { describeLimits, prlimitArgs } from './limits.ts';
import { createRunDirs, removeRunDirs, type RunOwner } from './runDirs.ts';
import { bwrapArgs, sandboxEnv, type SandboxLayout } from './sandbox.ts';
import type { BoundsMode } from './runCgroup.ts';
import { innerCommand } from './sandboxInit.ts';
import type { SandboxStatus } from './types.ts';

export interface ProbeOptions {
  /** A program name (looked up on PATH) or an absolute path. */
  bwrapPath: string;
  prlimitPath: string;
  limits: SandboxLimits;
  system: string[];
  /** The sandbox user when the bot runs as root (the first slot's). */
  owner?: RunOwner;
  /** The node that runs the network bridge inside (the bot's own). */
  nodePath?: string;
  /** How memory and processes are bounded (runCgroup.ts). */
  bounds?: BoundsMode;
}

// Inside the probe: a nested user namespace must be refused (--disable-userns); exit 3 says it was not.
const NESTED_CHECK = 'if command -v unshare >/dev/null && unshare --user true 2>/dev/null; then exit 3; fi';
const NESTED_EXIT = 3;

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
    const layout: SandboxLayout = {
      skills: [{ id: 'probe', dir: skillDir }],
      cwd: '/skills/probe',
      sizes: { home: options.limits.homeBytes, tmp: options.limits.tmpBytes, shm: options.limits.shmBytes },
      passwd: dirs.passwd,
      group: dirs.group,
    };
    const run = (command: string[]) =>
      execa(prlimit, [...prlimitArgs(options.limits), '--', bwrap, ...bwrapArgs(layout, options.system), '--', ...command], {
        env: sandboxEnv({}, {}, false),
        extendEnv: false,
        reject: false,
        timeout: PROBE_TIMEOUT_MS,
        stdin: 'ignore',
        ...(options.owner === undefined ? {} : { uid: options.owner.uid, gid: options.owner.gid }),
      });
    // The network bridge is checked beside the sandbox itself: without it only networked runs are refused.
    const [result, bridged] = await Promise.all([
      run(innerCommand(['/bin/sh', '-c', NESTED_CHECK], undefined)),
      options.nodePath === undefined ? undefined : run(innerCommand(['true'], { nodePath: options.nodePath })),
    ]);
    if (result.exitCode === 0) {
      const network =
        bridged === undefined || bridged.exitCode === 0
          ? undefined
          : {
              problem: `the network bridge does not start inside the sandbox (${lastLine(bridged.stderr) || `exit ${bridged.exitCode}`})`,
              fix: "make the bot's node runnable inside the sandbox (install node under /usr, or keep its install folder readable by the sandbox user); see docs/security.md",
            };
      return {
        mode: 'bwrap',
        usable: true,
        isolates: isolation(options),
        bounds: options.bounds ?? { kind: 'rlimits', why: 'no cgroup was looked for' },
        ...(network === undefined ? {} : { network }),
      };
    }
    if (result.exitCode === NESTED_EXIT) {
      return unusable(
        'a sandboxed process can still create user namespaces of its own (--disable-userns did not hold)',
        'install bubblewrap 0.8 or newer, on a kernel that has user.max_user_namespaces; see docs/security.md',
      );
    }
    const detail = lastLine(result.stderr);
    const said = detail === '' ? (result.shortMessage ?? `exit ${result.exitCode}`) : detail;
    if (/Unknown option|unrecognized option/i.test(said)) {
      return unusable(`this bwrap is too old (${said})`, 'install bubblewrap 0.8 or newer (--disable-userns, --size); see docs/security.md');
    }
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

function lastLine(text: unknown): string {
  return `${String(text ?? '')}`.trim().split('\n').at(-1) ?? '';
}

function isolation(options: ProbeOptions): string[] {
  return [
    'own user, pid, ipc, uts, cgroup and network namespaces, and no nested user namespaces',
    "never the host's network: skills the world lists reach public addresses only, through the bot's egress proxy",
    'a read-only root, read-only /usr and system libraries, a minimal /etc, no host /home, /root, /run, /tmp or bot folder',
    "runs start in the chat's workspace (/workspace, read-write, bounded), the skill read-only at /skills/<id>; a private HOME, TMPDIR and /dev/shm (sized tmpfs)",
    'all capabilities dropped',
    options.owner === undefined ? "the bot's own uid" : `an unprivileged uid (${options.owner.uid} and up, one per slot)`,
    describeLimits(options.limits),
  ];
}
