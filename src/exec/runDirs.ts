// A fresh private folder for every run (HOME and TMPDIR for a run without the sandbox, the skill's copy when it is
// not shared), removed after it.
import { chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../ops/log.ts';
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import { Folder, NotAFolder, WorkspacePathError } from '../workspace/folderFd.ts';
import { hostsFile, identityFiles } from './sandbox.ts';

const STALE_PREFIX = 'skillbot-run-';

export interface RunDirs {
  root: string;
  home: string;
  tmp: string;
  /** The run's /etc/passwd, /etc/group and /etc/hosts for the sandbox. */
  passwd: string;
  group: string;
  hosts: string;
}

/** The uid and gid the sandboxed process runs as, when it differs from the bot's (the bot runs as root). */
export interface RunOwner {
  uid: number;
  gid: number;
}

/**
 * Makes the run's folders (mode 0700). A handful of tiny local syscalls: done synchronously, which costs far less
 * than a round trip through libuv's thread pool for each (it counts in every run's latency). With an owner, HOME and TMPDIR are the sandbox user's,
 * and the root folder too, so that user can reach what is bound into the sandbox.
 */
export function createRunDirs(owner?: RunOwner): RunDirs {
  // The bot's pid in the name lets a later start tell a dead bot's leftovers from a live one's runs.
  const root = mkdtempSync(path.join(os.tmpdir(), `${STALE_PREFIX}${process.pid}-`));
  const dirs: RunDirs = {
    root,
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    passwd: path.join(root, 'passwd'),
    group: path.join(root, 'group'),
    hosts: path.join(root, 'hosts'),
  };
  for (const dir of [dirs.home, dirs.tmp]) mkdirSync(dir, { mode: 0o700 });
  const identity = identityFiles(owner?.uid ?? process.getuid?.() ?? 65534, owner?.gid ?? process.getgid?.() ?? 65534);
  writeFileSync(dirs.passwd, identity.passwd, { mode: 0o644 });
  writeFileSync(dirs.group, identity.group, { mode: 0o644 });
  writeFileSync(dirs.hosts, hostsFile(), { mode: 0o644 });
  if (owner !== undefined) {
    for (const dir of [root, dirs.home, dirs.tmp]) chownSync(dir, owner.uid, owner.gid);
  }
  return dirs;
}

/**
 * Readies a chat's workspace for a run: the folder is its user's and closed to every other local account (a script
 * may have opened it to all since the last run), and `outputs` is a real folder of that user. Everything goes by
 * descriptor: a planted `outputs` link is never followed, and an `outputs` that is a link or a file is moved aside
 * (to `outputs (moved)`, `outputs (moved 2)`…, which the run's list of changes then shows) rather than failing
 * every later run. Errors name /workspace paths only.
 */
export function prepareWorkspace(dir: string, owner: RunOwner | undefined): void {
  let workspace: Folder;
  try {
    workspace = Folder.open(dir);
  } catch (error) {
    throw new WorkspacePathError(`the chat's workspace cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    workspace.reset(0o700, owner);
    const existing = workspace.lstat('outputs');
    if (existing !== undefined && !existing.isDirectory()) workspace.rename('outputs', workspace, asideName(workspace));
    const outputs = workspace.childOrMake('outputs', 0o755, owner);
    outputs.reset(0o755, owner);
    outputs.close();
  } catch (error) {
    // The person and the model read /workspace paths, never the host's (nor the descriptor paths used to get there).
    if (error instanceof NotAFolder) throw new WorkspacePathError(`${SANDBOX_PATHS.outputs} changed while it was made ready; run again`);
    if (error instanceof WorkspacePathError) throw error;
    throw new WorkspacePathError(`${SANDBOX_PATHS.outputs} could not be made ready (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    workspace.close();
  }
}

/**
 * After a run: the workspace closed to every other local account again at once (a script's `chmod 0777
 * /workspace` must not stay open until the next run). Returns the error instead of throwing: the run's result
 * matters more, and the next run resets it too.
 */
export function closeWorkspace(dir: string, owner: RunOwner | undefined): Error | undefined {
  try {
    const workspace = Folder.open(dir);
    try {
      workspace.reset(0o700, owner);
    } finally {
      workspace.close();
    }
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

function asideName(workspace: Folder): string {
  for (let n = 1; ; n += 1) {
    const name = n === 1 ? 'outputs (moved)' : `outputs (moved ${n})`;
    if (workspace.lstat(name) === undefined) return name;
  }
}

/** Removes the run's folders; returns the error instead of throwing, the run's result matters more. */
export async function removeRunDirs(dirs: RunDirs): Promise<Error | undefined> {
  try {
    await rm(dirs.root, { recursive: true, force: true, maxRetries: 3 });
    return undefined;
  } catch (error) {
    return error as Error;
  }
}


/**
 * Removes run folders left in the temp folder by a bot that died mid-run (a kill -9, a power cut): they hold
 * copies of skills and the person's files. A folder goes when the bot that made it (the pid in its name) is gone,
 * or when it is older than `minAgeMs` (a pid of another PID namespace, or one reused), so a run of another
 * skillbot on the same host that is under way is left alone. Synchronous and once per executor: a few stats.
 */
export function sweepStaleRunDirs(logger?: Logger, minAgeMs = 6 * 60 * 60 * 1000, now = Date.now()): number {
  let swept = 0;
  let entries: string[];
  try {
    entries = readdirSync(os.tmpdir());
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.startsWith(STALE_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), entry);
    try {
      const info = lstatSync(dir);
      const owner = Number(/^(\d+)-/.exec(entry.slice(STALE_PREFIX.length))?.[1]);
      const ownerGone = Number.isInteger(owner) && owner !== process.pid && !isProcessAlive(owner);
      if (!info.isDirectory() || (!ownerGone && now - info.mtimeMs < minAgeMs)) continue;
      rmSync(dir, { recursive: true, force: true });
      swept += 1;
    } catch (error) {
      logger?.warn({ err: error, dir }, 'could not remove a stale run folder');
    }
  }
  if (swept > 0) logger?.info({ swept }, 'removed run folders left by an earlier run of the bot');
  return swept;
}

/** Whether a process with this pid exists (one of another user counts: EPERM). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
