// Test helpers: real temp skill folders holding real scripts, and process liveness checks.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TempSkill {
  /** The parent temp folder (room for things outside the skill). */
  root: string;
  /** The skill folder. */
  dir: string;
  /** Writes a file under the skill folder; executable unless told otherwise. */
  write(relative: string, content: string, options?: { executable?: boolean }): Promise<string>;
  remove(): Promise<void>;
}

export async function makeSkill(): Promise<TempSkill> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'skillbot-exec-test-'));
  const dir = path.join(root, 'skill');
  await mkdir(dir);
  return {
    root,
    dir,
    async write(relative, content, options = {}) {
      const file = path.join(dir, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      await chmod(file, options.executable === false ? 0o644 : 0o755);
      return file;
    },
    async remove() {
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** True while the process exists and is not a zombie (a killed orphan may wait to be reaped by init). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return stat !== '' && state !== 'Z';
}

/** Waits up to `ms` for the process to be gone; returns whether it is. */
export async function waitGone(pid: number, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await isAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !(await isAlive(pid));
}

/** Host pids whose command line holds `marker` (a sandboxed process's own pid means nothing on the host). */
export async function hostPidsWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

/** Collects, from the host, the pids of processes holding `marker` in their argv while `during` runs. */
export async function watchHostPids<T>(marker: string, during: Promise<T>): Promise<{ value: T; pids: number[] }> {
  const seen = new Set<number>();
  let done = false;
  const finished = during.finally(() => {
    done = true;
  });
  while (!done) {
    for (const pid of await hostPidsWith(marker)) seen.add(pid);
    await Promise.race([finished.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  return { value: await finished, pids: [...seen] };
}

/** A `sleep` argument unique to one test, to find its processes from the host. */
export function uniqueSleep(): string {
  return `${300 + Math.floor(Math.random() * 600)}.${process.pid}${Math.floor(Math.random() * 1000)}`;
}
