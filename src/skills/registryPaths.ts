// Small path facts the registry's incremental reload needs.
import type { IndexedFolder } from './indexSkill.ts';

/** Whether `path` is `base` or inside it. */
export function underPath(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/** How many levels `folder` sits below `root` (0 for the root itself). */
export function folderDepth(root: string, folder: string): number {
  return folder === root ? 0 : folder.slice(root.length + 1).split('/').length;
}

/** Whether a reindexed folder gives the same result as before (no new snapshot needed). */
export function sameOutcome(a: IndexedFolder, b: IndexedFolder): boolean {
  if (a === b) return true;
  if (a.hash !== b.hash || a.rootIndex !== b.rootIndex || Boolean(a.skill) !== Boolean(b.skill)) return false;
  const problems = (entry: IndexedFolder) =>
    JSON.stringify(entry.skill ? entry.skill.warnings : [entry.invalid?.errors, entry.invalid?.warnings]);
  return problems(a) === problems(b);
}
