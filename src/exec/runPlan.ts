// Everything decided before a skill process starts: the skill folders it sees (private copies checked against the
// approved hashes), the contained script or the shell command, its interpreter, the workspace, and the exact
// command line and environment.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { childEnv } from './childEnv.ts';
import { type RunTrust, trustEnv } from './egressCa.ts';
import { containScript } from './containment.ts';
import { copyFolder, DEFAULT_SKILL_COPY_BOUNDS } from './folderCopy.ts';
import { interpreterFor, readFirstLine } from './interpreter.ts';
import { prlimitArgs } from './limits.ts';
import type { CheckedRequest } from './request.ts';
import { prepareWorkspace, type RunDirs, type RunOwner } from './runDirs.ts';
import type { BoundsMode } from './runCgroup.ts';
import { SANDBOX_PATHS, skillPathInside } from '../config/sandboxPaths.ts';
import { bwrapArgs, sandboxEnv } from './sandbox.ts';
import type { SandboxPlan } from './sandboxPlan.ts';
import { INFO_FD, innerCommand, proxyEnv } from './sandboxInit.ts';
import type { VerifiedCopies } from './verifiedCopies.ts';

/** How one run is sandboxed: the executor's plan (sandboxPlan.ts), with this run's identity and skill copies. */
export interface RunPlan extends SandboxPlan {
  owner: RunOwner | undefined;
  /** With the registry's hash: every skill folder a run sees is a copy verified against its approved hash. */
  copies?: VerifiedCopies;
  maxSkillBytes?: number | undefined;
  /** Where the host lets the bot make cgroups: how each run gets a cgroup of its own (runCgroup.ts). */
  cgroups?: Extract<BoundsMode, { kind: 'cgroup' }>;
}

/** A run ready to spawn. */
export interface PreparedRun {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  owner: RunOwner | undefined;
  /** The interpreter, for messages. */
  interpreter: string;
  /** Runs in bwrap (which reports a child killed by signal N as exit 128+N). */
  sandboxed: boolean;
  /** A sandboxed run without network: the skill its refuser names ("network is off for <skill> in this world"). */
  offFor?: string;
}

/** A networked sandboxed run's egress proxy: its socket (host path, alone in a folder of its own). */
export interface RunEgress {
  socket: string;
  /** A run with credentials: its trust files (the CA's certificate, the bundle with it). */
  trust?: RunTrust;
}

/** Skill folders held for a run; released (shared copies become evictable) when it ends. */
export type Releases = Array<() => void>;

interface Mount {
  id: string;
  dir: string;
}

function mountsOf(request: CheckedRequest): Array<{ id: string; dir: string; expectedHash?: string }> {
  const own =
    request.skillDir === undefined
      ? []
      : [{ id: request.skillId ?? path.basename(path.resolve(request.skillDir)), dir: request.skillDir, ...(request.expectedHash === undefined ? {} : { expectedHash: request.expectedHash }) }];
  const others = request.skills.filter((skill) => !own.some((mine) => mine.id === skill.id));
  return [...own, ...others];
}

/** The folders the run sees: verified shared copies, per-run copies (sandbox without hashes), or the folders themselves. */
async function skillFolders(request: CheckedRequest, dirs: RunDirs, plan: RunPlan, releases: Releases): Promise<Mount[] | { refused: string }> {
  const mounts: Mount[] = [];
  for (const [index, mount] of mountsOf(request).entries()) {
    if (plan.copies !== undefined) {
      if (mount.expectedHash === undefined) return { refused: `the skill "${mount.id}" has no approved content hash, so what it holds cannot be checked` };
      const copy = await plan.copies.acquire(mount.dir, mount.expectedHash);
      if ('refused' in copy) return copy;
      releases.push(copy.release);
      mounts.push({ id: mount.id, dir: copy.dir });
    } else if (plan.mode === 'bwrap') {
      // The sandbox always runs a private copy: its user may not read the original, and nothing can change it mid-run.
      const holder = path.join(dirs.root, 'skill', String(index));
      mkdirSync(holder, { recursive: true, mode: 0o755 });
      const dir = path.join(holder, path.basename(path.resolve(mount.dir)));
      const bounds = { ...DEFAULT_SKILL_COPY_BOUNDS, ...(plan.maxSkillBytes === undefined ? {} : { maxBytes: plan.maxSkillBytes }) };
      const copied = await copyFolder(mount.dir, dir, bounds, 'inside');
      if (!copied.ok) return { refused: `the skill cannot be run: ${copied.reason.replace(/^the folder /, 'the skill folder ')}` };
      mounts.push({ id: mount.id, dir });
    } else {
      mounts.push({ id: mount.id, dir: mount.dir });
    }
  }
  return mounts;
}

/** `fileBytes`: the largest file a process may write (RLIMIT_FSIZE), at most the room left in the workspace. */
export async function prepareRun(
  request: CheckedRequest,
  dirs: RunDirs,
  plan: RunPlan,
  fileBytes: number,
  releases: Releases,
  egress?: RunEgress,
): Promise<PreparedRun | { refused: string }> {
  const sandboxed = plan.mode === 'bwrap';
  const folders = await skillFolders(request, dirs, plan, releases);
  if ('refused' in folders) return folders;
  if (request.workspace !== undefined) prepareWorkspace(request.workspace.dir, plan.owner);
  const own = request.skillDir === undefined ? undefined : folders[0];

  // The script as the process will name it (inside the sandbox: under /skills/<id>), and what picks its interpreter.
  let script: { path: string; firstLine: string; executable: boolean } | undefined;
  if (request.script !== undefined && own !== undefined) {
    const contained = await containScript(own.dir, request.script);
    if (!contained.ok) return { refused: contained.reason };
    const inside = sandboxed
      ? path.posix.join(skillPathInside(own.id), path.relative(contained.skillDir, contained.scriptPath).split(path.sep).join('/'))
      : contained.scriptPath;
    script = { path: inside, firstLine: await readFirstLine(contained.scriptPath), executable: contained.executable };
  }
  const interpreter =
    script === undefined
      ? { ok: true as const, command: 'bash', args: ['-c', request.shell ?? ''] }
      : interpreterFor(script.path, script.firstLine, { executable: script.executable, nodePath: plan.nodePath });
  if (!interpreter.ok) return { refused: interpreter.reason };

  if (!sandboxed) {
    const workspace = request.workspace?.dir;
    const io: Record<string, string> = workspace === undefined ? {} : { SKILLBOT_INPUT_DIR: workspace, SKILLBOT_OUTPUT_DIR: path.join(workspace, 'outputs') };
    return {
      command: interpreter.command,
      args: [...interpreter.args, ...request.args],
      cwd: workspace ?? own?.dir ?? dirs.root,
      env: { ...childEnv(process.env, request.env, dirs), ...io },
      owner: undefined,
      interpreter: interpreter.command,
      sandboxed: false,
    };
  }

  const cwd = request.workspace !== undefined ? SANDBOX_PATHS.workspace : own !== undefined ? skillPathInside(own.id) : SANDBOX_PATHS.home;
  const layout = {
    skills: folders,
    ...(request.workspace === undefined ? {} : { workspace: request.workspace.dir }),
    cwd,
    sizes: { home: plan.limits.homeBytes, tmp: plan.limits.tmpBytes, shm: plan.limits.shmBytes },
    passwd: dirs.passwd,
    group: dirs.group,
    hosts: dirs.hosts,
    ...(egress === undefined ? {} : { egressSocket: egress.socket, networked: true }),
    ...(egress?.trust === undefined ? {} : { trust: egress.trust }),
    infoFd: INFO_FD,
  };
  const limits = { ...plan.limits, maxFileBytes: Math.max(1, Math.min(plan.limits.maxFileBytes, fileBytes)) };
  // Without network, a refuser beside the script says so to whatever asks the proxy variables for a connection.
  const offFor = egress === undefined ? (request.skillId ?? (own === undefined ? 'bash' : path.basename(path.resolve(request.skillDir ?? own.dir)))) : undefined;
  const inner = innerCommand([interpreter.command, ...interpreter.args, ...request.args], { nodePath: plan.nodePath, ...(offFor === undefined ? {} : { offFor }) }, plan.cgroups !== undefined);
  return {
    command: plan.prlimitPath,
    args: [...prlimitArgs(limits, { perUid: plan.cgroups === undefined }), '--', plan.bwrapPath, ...bwrapArgs(layout, plan.system), '--', ...inner],
    cwd: dirs.root,
    env: { ...sandboxEnv(process.env, request.env, request.workspace !== undefined, plan.nodePath), ...proxyEnv(), ...(egress?.trust === undefined ? {} : trustEnv()) },
    owner: plan.owner,
    interpreter: interpreter.command,
    sandboxed: true,
    ...(offFor === undefined ? {} : { offFor }),
  };
}
