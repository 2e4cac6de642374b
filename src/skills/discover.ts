// Finding skill folders under a root: a folder holding SKILL.md is a skill (its insides are not searched
// for more); other folders are searched down to a bounded depth. Symlinked folders are followed unless
// they lead back to a folder being searched (a loop); .git and node_modules are skipped. Two paths to one
// real folder are both reported, so which one wins a name clash depends only on the paths, not on timing.
import type { Dirent } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { readEntries } from './fileReads.ts';
import type { Limiter } from './limiter.ts';
import type { FolderPlace } from './indexSkill.ts';

export const DISCOVERY_LIMITS = {
  /** A skill folder may sit at most this many levels below its root (root/group/group/skill). */
  maxDepth: 3,
  /** Folders looked at per discovery, so a huge unrelated tree cannot stall startup. */
  maxFolders: 200_000,
};

const SKIPPED = new Set(['.git', 'node_modules']);

export interface Discovery {
  skills: FolderPlace[];
  /** Non-skill folders searched (root and groups): the watcher watches them for new skills. */
  treeDirs: Array<{ path: string; depth: number }>;
  /** Set when the start folder could not be read. */
  unreadable?: string;
  /** Set when maxFolders was reached. */
  truncated: boolean;
}

export function holdsSkillMd(entries: readonly Dirent[]): boolean {
  return entries.some((e) => e.name === 'SKILL.md' && (e.isFile() || e.isSymbolicLink()));
}

/**
 * Search `start` (`depth` levels below `root`) for skill folders. `above` holds the real paths of the
 * folders between the root and `start` (for loop detection when searching part of a root).
 */
export async function discoverSkills(
  root: { path: string; index: number },
  start: { path: string; depth: number; above?: ReadonlySet<string> },
  limiter: Limiter,
): Promise<Discovery> {
  const result: Discovery = { skills: [], treeDirs: [], truncated: false };
  let folders = 0;

  const visit = async (
    path: string,
    realPath: string,
    depth: number,
    ancestors: ReadonlySet<string>,
    isStart = false,
  ): Promise<void> => {
    if (ancestors.has(realPath)) return;
    folders += 1;
    if (folders > DISCOVERY_LIMITS.maxFolders) {
      result.truncated = true;
      return;
    }
    let entries: Dirent[];
    try {
      entries = await limiter.run(() => readEntries(path));
    } catch (err) {
      if (isStart) result.unreadable = err instanceof Error ? err.message : String(err);
      return;
    }
    if (holdsSkillMd(entries)) {
      result.skills.push({ root: root.path, rootIndex: root.index, folder: path, entries, realDir: realPath });
      return;
    }
    result.treeDirs.push({ path, depth });
    if (depth >= DISCOVERY_LIMITS.maxDepth) return;
    const children: Promise<void>[] = [];
    const inside = new Set(ancestors).add(realPath);
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const childPath = `${path}/${entry.name}`;
      if (entry.isDirectory()) children.push(visit(childPath, `${realPath}/${entry.name}`, depth + 1, inside));
      else if (entry.isSymbolicLink()) children.push(visitLink(childPath, depth + 1, inside));
    }
    await Promise.all(children);
  };

  const visitLink = async (path: string, depth: number, ancestors: ReadonlySet<string>): Promise<void> => {
    try {
      const real = await limiter.run(() => realpath(path));
      if ((await limiter.run(() => stat(real))).isDirectory()) await visit(path, real, depth, ancestors);
    } catch {
      // A dangling or looping symlink is not a skill folder.
    }
  };

  let startReal: string;
  try {
    startReal = await realpath(start.path);
  } catch (err) {
    result.unreadable = err instanceof Error ? err.message : String(err);
    return result;
  }
  await visit(start.path, startReal, start.depth, start.above ?? new Set(), true);
  result.skills.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
  return result;
}
