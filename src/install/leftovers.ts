// What a crash mid-install leaves beside INSTALLED_SKILLS_DIR: fetched trees in `<dir>.staging` (and their git
// folders), skills half written in `<dir>.incoming`. Swept at start, but only when older than an install can
// last: the folder may be shared by another instance whose card is still waiting for an answer.
import { readdir, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { DEFAULT_BOUNDS } from './bounds.ts';

export const stagingDirOf = (installedDir: string): string => `${installedDir}.staging`;
export const incomingDirOf = (installedDir: string): string => `${installedDir}.incoming`;

/**
 * How long a staged tree may be in use: its fetch, then its card's wait (the longest any world has), and a minute
 * to spare. A new card for the same tree (a pick) refreshes it (touchStaged), so the wait counts from the last card.
 */
export function stagingLifetimeMs(config: Config, fetchMs = DEFAULT_BOUNDS.timeoutMs): number {
  const waits = [config.approvalTimeoutMs, config.defaults.approvalTimeoutMs, ...Object.values(config.worlds).map((world) => world.approvalTimeoutMs ?? 0)];
  return fetchMs + Math.max(...waits) + 60_000;
}

/** Marks a staged tree as in use now (its modification time is what the sweep reads). */
export async function touchStaged(dir: string, now = new Date()): Promise<void> {
  await utimes(dir, now, now).catch(() => undefined);
}

/** Removes the leftovers older than `olderThanMs`; returns the paths removed. A folder that is not there is fine. */
export async function sweepLeftovers(installedDir: string, olderThanMs: number, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const parent of [stagingDirOf(installedDir), incomingDirOf(installedDir)]) {
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(parent, name);
      const info = await stat(path).catch(() => undefined);
      if (info === undefined || now - info.mtimeMs <= olderThanMs) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    }
  }
  return removed;
}
