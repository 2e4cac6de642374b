// A fresh HOME and TMPDIR for every run, so scripts neither read the bot's home nor leave files behind.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface RunDirs {
  root: string;
  home: string;
  tmp: string;
}

export async function createRunDirs(): Promise<RunDirs> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'skillbot-run-'));
  const dirs = { root, home: path.join(root, 'home'), tmp: path.join(root, 'tmp') };
  await mkdir(dirs.home, { mode: 0o700 });
  await mkdir(dirs.tmp, { mode: 0o700 });
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
