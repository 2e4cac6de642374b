// Small path facts the registry's incremental reload needs.
import { realpath } from 'node:fs/promises';
import type { IndexedFolder } from './indexSkill.ts';

/** Whether `path` is `base` or inside it. */
export function underPath(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/** How many levels `folder` sits below `root` (0 for the root itself). */
export function folderDepth(root: string, folder: string): number {
  return folder === root ? 0 : folder.slice(root.length + 1).split('/').length;
}

/** Real paths of `root` and every folder between it and `path` (for loop detection). */
export async function realAncestors(root: string, path: string): Promise<Set<string>> {
  const above = new Set<string>();
  const parts = path === root ? [] : path.slice(root.length + 1).split('/').slice(0, -1);
  let current = root;
  for (const part of [undefined, ...parts]) {
    if (part !== undefined) current = `${current}/${part}`;
    try {
      above.add(await realpath(current));
    } catch {
      // A folder that vanished has no real path; the search below it will find nothing either.
    }
  }
  return above;
}

/** Whether a reindexed folder gives the same result as before (no new snapshot needed). */
export function sameOutcome(a: IndexedFolder, b: IndexedFolder): boolean {
  if (a === b) return true;
  if (a.hash !== b.hash || a.rootIndex !== b.rootIndex || Boolean(a.skill) !== Boolean(b.skill)) return false;
  const problems = (entry: IndexedFolder) =>
    JSON.stringify(entry.skill ? entry.skill.warnings : [entry.invalid?.errors, entry.invalid?.warnings]);
  return problems(a) === problems(b);
}
