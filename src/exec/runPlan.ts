// Everything decided before a skill process starts: the private copy of the skill (checked against the approved
// hash), the turn's input files, the contained script, its interpreter, and the exact command line and environment.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { childEnv } from './childEnv.ts';
import { containScript } from './containment.ts';
import { copyFolder, DEFAULT_SKILL_COPY_BOUNDS } from './folderCopy.ts';
import { interpreterFor, readFirstLine } from './interpreter.ts';
import { prlimitArgs, type SandboxLimits } from './limits.ts';
import type { CheckedRequest } from './request.ts';
import type { RunDirs, RunOwner } from './runDirs.ts';
import { bwrapArgs, SANDBOX_PATHS, sandboxEnv } from './sandbox.ts';
import { INFO_FD, innerCommand, proxyEnv } from './sandboxInit.ts';

/** How this executor runs things, the same for every request. */
export interface RunPlan {
  mode: 'bwrap' | 'off';
  limits: SandboxLimits;
  system: string[];
  owner: RunOwner | undefined;
  bwrapPath: string;
  prlimitPath: string;
  /** The node that runs .js scripts; its install folder is mounted when it is outside the system folders. */
  nodePath: string;
  hashFolder?: (dir: string) => Promise<{ hash: string } | { error: string }>;
  maxSkillBytes?: number;
  /** With a delegated cgroup v2 tree: where each run gets a cgroup of its own (runCgroup.ts). */
  cgroupsDir?: string;
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
  /** Files written into the run's output folder are copied to the request's outputDir afterwards. */
  copyOutputs: boolean;
  /** A networked sandboxed run: where the egress proxy must listen (host path) before the spawn. */
  egressSocket?: string;
}

const INPUT_BOUNDS = { maxBytes: 256 * 1024 * 1024, maxEntries: 1000 };

export async function prepareRun(request: CheckedRequest, dirs: RunDirs, plan: RunPlan): Promise<PreparedRun | { refused: string }> {
  const sandboxed = plan.mode === 'bwrap';
  // The sandbox always runs a private copy: its user may not read the original, and nothing can change it mid-run.
  let skillDir = request.skillDir;
  if (sandboxed || plan.hashFolder !== undefined) {
    // The copy keeps the folder's own name, in case the hash (or a check beside it) looks at it.
    mkdirSync(path.join(dirs.root, 'skill'), { mode: 0o755 });
    skillDir = path.join(dirs.root, 'skill', path.basename(path.resolve(request.skillDir)));
    const bounds = { ...DEFAULT_SKILL_COPY_BOUNDS, ...(plan.maxSkillBytes === undefined ? {} : { maxBytes: plan.maxSkillBytes }) };
    const copied = await copyFolder(request.skillDir, skillDir, bounds, 'inside');
    if (!copied.ok) return { refused: `the skill cannot be run: ${copied.reason.replace(/^the folder /, 'the skill folder ')}` };
  }
  if (plan.hashFolder !== undefined) {
    const hashed = await plan.hashFolder(skillDir);
    if ('error' in hashed) return { refused: `the skill cannot be checked against what was approved: ${hashed.error}` };
    if (hashed.hash !== request.expectedHash) {
      return { refused: 'the skill changed since it was approved, so it was not run; ask again to approve what it holds now' };
    }
  }

  const contained = await containScript(skillDir, request.script);
  if (!contained.ok) return { refused: contained.reason };
  const firstLine = await readFirstLine(contained.scriptPath);

  if (!sandboxed) {
    const interpreter = interpreterFor(contained.scriptPath, firstLine, { executable: contained.executable, nodePath: plan.nodePath });
    if (!interpreter.ok) return { refused: interpreter.reason };
    const io = {
      ...(request.inputDir === undefined ? {} : { SKILLBOT_INPUT_DIR: request.inputDir }),
      ...(request.outputDir === undefined ? {} : { SKILLBOT_OUTPUT_DIR: request.outputDir }),
    };
    return {
      command: interpreter.command,
      args: [...interpreter.args, ...request.args],
      cwd: contained.skillDir,
      env: { ...childEnv(process.env, request.env, dirs), ...io },
      owner: undefined,
      interpreter: interpreter.command,
      sandboxed: false,
      copyOutputs: false,
    };
  }

  let input: string | undefined;
  if (request.inputDir !== undefined) {
    input = path.join(dirs.root, 'input');
    const copied = await copyFolder(request.inputDir, input, INPUT_BOUNDS, 'skip');
    if (!copied.ok) return { refused: `the turn's files cannot be given to the script: ${copied.reason}` };
  }
  const inside = path.posix.join(SANDBOX_PATHS.skill, path.relative(contained.skillDir, contained.scriptPath).split(path.sep).join('/'));
  const interpreter = interpreterFor(inside, firstLine, { executable: contained.executable, nodePath: plan.nodePath });
  if (!interpreter.ok) return { refused: interpreter.reason };
  const output = request.outputDir === undefined ? undefined : dirs.output;
  const network = request.network === true;
  const egressSocket = network ? path.join(dirs.root, 'egress.sock') : undefined;
  const layout = {
    skillDir,
    sizes: { home: plan.limits.homeBytes, tmp: plan.limits.tmpBytes, shm: plan.limits.shmBytes },
    input,
    output,
    passwd: dirs.passwd,
    group: dirs.group,
    egressSocket,
    infoFd: INFO_FD,
  };
  const inner = innerCommand([interpreter.command, ...interpreter.args, ...request.args], network ? { nodePath: plan.nodePath } : undefined);
  return {
    command: plan.prlimitPath,
    args: [...prlimitArgs(plan.limits), '--', plan.bwrapPath, ...bwrapArgs(layout, plan.system), '--', ...inner],
    cwd: dirs.root,
    env: {
      ...sandboxEnv(process.env, request.env, { input: input !== undefined, output: output !== undefined }),
      ...(network ? proxyEnv() : {}),
    },
    owner: plan.owner,
    interpreter: interpreter.command,
    sandboxed: true,
    copyOutputs: output !== undefined,
    ...(egressSocket === undefined ? {} : { egressSocket }),
  };
}
