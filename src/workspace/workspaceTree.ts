// What a chat's workspace holds, read without following links: what it costs against its bounds, and what a run
// created or changed (the tool result lists it). The walk goes by folder descriptor (src/workspace/folderFd.ts),
// so a path of any length is seen, and a planted link is never followed.
import type { Stats } from 'node:fs';
import { Folder } from './folderFd.ts';

export interface TreeEntry {
  /** Apparent size (what a reader gets). */
  size: number;
  /** What it counts against the byte bound: its disk blocks, or its apparent size when larger (a sparse file). */
  charged: number;
  mtimeMs: number;
  ino: number;
  kind: 'file' | 'dir' | 'link' | 'other';
}

export interface TreeScan {
  /** Relative `/`-separated path → entry; the root itself is not listed (empty when the walk only counted). */
  entries: Map<string, TreeEntry>;
  /**
   * Bytes charged to the bound: every entry's disk blocks (a file allocated past its size with `fallocate
   * --keep-size` counts what it holds), and a file's apparent size when larger (a sparse file counts whole: that
   * is what a copy of it, an upload or another instance's restore, takes).
   */
  bytes: number;
  /** Entries of any kind. */
  files: number;
  /** Set when part of the tree could not be walked (nested too deep, unreadable): the tree counts as over its bound. */
  unwalkable?: string;
}

/** One workspace file a run created or changed. */
export interface WorkspaceChange {
  /** Relative to the workspace, `/`-separated. */
  path: string;
  size: number;
  created: boolean;
}

/** Folders held open at once by a walk; a tree nested deeper counts as over its bound (the removal still goes). */
const MAX_WALK_DEPTH = 1024;
const YIELD_EVERY = 2000;

function kindOf(info: Stats): TreeEntry['kind'] {
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'dir';
  return info.isSymbolicLink() ? 'link' : 'other';
}

function chargedBytes(info: Stats): number {
  const blocks = info.blocks * 512;
  return info.isFile() ? Math.max(blocks, info.size) : blocks;
}

/**
 * Walks `root` by descriptor, never following links. With `stopAt`, stops once the bound is passed and lists
 * nothing (a guard only needs the count). Entries that vanish mid-walk are skipped.
 */
export async function scanTree(root: string, stopAt?: { bytes: number; files: number }): Promise<TreeScan> {
  const list = stopAt === undefined;
  const scan: TreeScan = { entries: new Map(), bytes: 0, files: 0 };
  let top: Folder;
  try {
    top = Folder.open(root);
  } catch {
    return scan;
  }
  type Frame = { folder: Folder; rel: string; names: string[] };
  const stack: Frame[] = [{ folder: top, rel: '', names: safeNames(top) }];
  let seen = 0;
  try {
    while (stack.length > 0) {
      // Each step is a synchronous syscall or two: a large tree lets other work run between slices.
      if (++seen % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      const frame = stack[stack.length - 1] as Frame;
      const name = frame.names.pop();
      if (name === undefined) {
        stack.pop();
        frame.folder.close();
        continue;
      }
      let info: Stats | undefined;
      try {
        info = frame.folder.lstat(name);
      } catch {
        info = undefined;
      }
      if (info === undefined) continue;
      const rel = frame.rel === '' ? name : `${frame.rel}/${name}`;
      const kind = kindOf(info);
      const charged = chargedBytes(info);
      if (list) scan.entries.set(rel, { size: info.size, charged, mtimeMs: info.mtimeMs, ino: info.ino, kind });
      scan.files += 1;
      scan.bytes += charged;
      if (stopAt !== undefined && (scan.bytes > stopAt.bytes || scan.files > stopAt.files)) break;
      if (kind !== 'dir') continue;
      if (stack.length >= MAX_WALK_DEPTH) {
        scan.unwalkable = `folders nested deeper than ${MAX_WALK_DEPTH} levels`;
        if (stopAt !== undefined) break;
        continue;
      }
      let child: Folder | undefined;
      try {
        child = frame.folder.child(name);
      } catch {
        child = undefined; // Swapped for a link or a file since the lstat: it was counted as it was.
      }
      if (child !== undefined) stack.push({ folder: child, rel, names: safeNames(child, () => (scan.unwalkable = `${rel} cannot be read`)) });
    }
  } finally {
    for (const frame of stack) frame.folder.close();
  }
  return scan;
}

function safeNames(folder: Folder, onError?: () => void): string[] {
  try {
    return folder.names();
  } catch {
    onError?.();
    return [];
  }
}

/**
 * Whether the scan holds more than the bound. A tree that could not be walked whole does, unless it already could
 * not be at the run's `start` (the run may be cleaning it up: only growth counts then).
 */
export function exceeds(scan: TreeScan, bound: { bytes: number; files: number }, start?: TreeScan): boolean {
  const unwalkable = scan.unwalkable !== undefined && start?.unwalkable === undefined;
  return unwalkable || scan.bytes > bound.bytes || scan.files > bound.files;
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
export function limitSentence(limit: { bytes: number; files: number }, scan: { bytes: number; files: number; unwalkable?: string }): string {
  if (scan.unwalkable !== undefined) return `workspace limit reached (${scan.unwalkable})`;
  return scan.files > limit.files
    ? `workspace limit reached (${limit.files} files)`
    : `workspace limit reached (${Math.round(limit.bytes / MIB)} MiB)`;
}
