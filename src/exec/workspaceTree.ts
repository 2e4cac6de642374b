// What a chat's workspace holds, read without following links: its size and file count (its bounds), and what a
// run created or changed (the tool result lists it). Never follows a symlink a script planted: lstat only.
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface TreeEntry {
  size: number;
  mtimeMs: number;
  ino: number;
  kind: 'file' | 'dir' | 'link' | 'other';
}

export interface TreeScan {
  /** Relative `/`-separated path → entry; the root itself is not listed. */
  entries: Map<string, TreeEntry>;
  /** Bytes of regular files (their apparent size: a sparse file counts whole, as it would when uploaded). */
  bytes: number;
  /** Entries of any kind. */
  files: number;
}

/** One workspace file a run created or changed. */
export interface WorkspaceChange {
  /** Relative to the workspace, `/`-separated. */
  path: string;
  size: number;
  created: boolean;
}

function kindOf(info: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): TreeEntry['kind'] {
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'dir';
  return info.isSymbolicLink() ? 'link' : 'other';
}

/**
 * Walks `root` (lstat, never following links). Stops early once `stopAt` bytes or files are passed: a guard only
 * needs to know the bound is crossed. Entries that vanish mid-walk are skipped.
 */
export async function scanTree(root: string, stopAt?: { bytes: number; files: number }): Promise<TreeScan> {
  const scan: TreeScan = { entries: new Map(), bytes: 0, files: 0 };
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    let names: string[];
    try {
      names = await readdir(path.join(root, rel));
    } catch {
      continue;
    }
    const infos = await Promise.all(names.map((name) => lstat(path.join(root, rel, name)).catch(() => undefined)));
    for (const [index, name] of names.entries()) {
      const info = infos[index];
      if (info === undefined) continue;
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const kind = kindOf(info);
      scan.entries.set(childRel, { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, kind });
      scan.files += 1;
      if (kind === 'file') scan.bytes += info.size;
      if (kind === 'dir') pending.push(childRel);
    }
    if (stopAt !== undefined && (scan.bytes > stopAt.bytes || scan.files > stopAt.files)) break;
  }
  return scan;
}

/** Regular files that are new in `after`, or whose size, time or inode changed, sorted by path. */
export function changedFiles(before: TreeScan, after: TreeScan): WorkspaceChange[] {
  const changes: WorkspaceChange[] = [];
  for (const [rel, entry] of after.entries) {
    if (entry.kind !== 'file') continue;
    const old = before.entries.get(rel);
    const created = old === undefined || old.kind !== 'file';
    if (created || old.size !== entry.size || old.mtimeMs !== entry.mtimeMs || old.ino !== entry.ino) {
      changes.push({ path: rel, size: entry.size, created });
    }
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export const MIB = 1024 * 1024;

/** "workspace limit reached (512 MiB)" or "(10000 files)": the words the person and the model both see. */
export function limitSentence(limit: { bytes: number; files: number }, scan: { bytes: number; files: number }): string {
  return scan.files > limit.files
    ? `workspace limit reached (${limit.files} files)`
    : `workspace limit reached (${Math.round(limit.bytes / MIB)} MiB)`;
}
