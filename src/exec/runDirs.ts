// A fresh private folder for every run (HOME, TMPDIR, the skill's copy when it is not shared), removed after it.
import { chownSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { identityFiles } from './sandbox.ts';

export interface RunDirs {
  root: string;
  home: string;
  tmp: string;
  /** The run's /etc/passwd and /etc/group for the sandbox. */
  passwd: string;
  group: string;
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
  const root = mkdtempSync(path.join(os.tmpdir(), 'skillbot-run-'));
  const dirs: RunDirs = {
    root,
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    passwd: path.join(root, 'passwd'),
    group: path.join(root, 'group'),
  };
  for (const dir of [dirs.home, dirs.tmp]) mkdirSync(dir, { mode: 0o700 });
  const identity = identityFiles(owner?.uid ?? process.getuid?.() ?? 65534, owner?.gid ?? process.getgid?.() ?? 65534);
  writeFileSync(dirs.passwd, identity.passwd, { mode: 0o644 });
  writeFileSync(dirs.group, identity.group, { mode: 0o644 });
  if (owner !== undefined) {
    for (const dir of [root, dirs.home, dirs.tmp]) chownSync(dir, owner.uid, owner.gid);
  }
  return dirs;
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
