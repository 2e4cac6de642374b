// What the registry watches and what a file event means: an event in a skill folder (or one of its
// subfolders) marks that skill for a rescan; an event in a root or group folder names a child that may have
// become, or stopped being, a skill. Events are gathered and handed over after a quiet time.
import type { Logger } from '../ops/log.ts';
import { Debouncer } from './debouncer.ts';
import { DirWatchers } from './dirWatchers.ts';
import type { IndexedFolder } from './indexSkill.ts';
import { underPath } from './registryPaths.ts';

/** A searched folder that is not a skill: a root (depth 0) or a group. */
export interface TreeDir {
  rootIndex: number;
  depth: number;
}

export interface PendingChanges {
  /** Skill folders to rescan. */
  folders: Set<string>;
  /** Paths (children of tree folders) to search again, with where they sit. */
  children: Map<string, TreeDir>;
  /** Something changed that only a full rescan can tell. */
  full: boolean;
}

/** At most this long between the first event of a burst and the reload. */
const MAX_WAIT_MS = 2000;

export class RegistryWatch {
  private treeDirs = new Map<string, TreeDir>();
  /** Watched folder inside a skill → that skill's folder. */
  private readonly owners = new Map<string, string>();
  private pending: PendingChanges = { folders: new Set(), children: new Map(), full: false };
  private readonly watchers: DirWatchers | undefined;
  private readonly debouncer: Debouncer | undefined;

  /** Without `onReady` nothing is watched; tree folders are still tracked for partial rescans. */
  constructor(logger: Logger, options: { debounceMs: number; onReady?: () => void }) {
    const { onReady } = options;
    if (!onReady) return;
    this.watchers = new DirWatchers((dir, name) => this.record(dir, name), logger);
    this.debouncer = new Debouncer(options.debounceMs, MAX_WAIT_MS, onReady);
  }

  /** The changes gathered so far; the next events start a new set. */
  take(): PendingChanges {
    const taken = this.pending;
    this.pending = { folders: new Set(), children: new Map(), full: false };
    return taken;
  }

  /** Ask for a full rescan at the next reload (after a failed partial one). */
  requestFull(): void {
    this.pending.full = true;
  }

  addTreeDir(path: string, dir: TreeDir): void {
    this.treeDirs.set(path, dir);
    this.watchers?.add(path);
  }

  dropTreeDirsUnder(path: string): void {
    for (const key of [...this.treeDirs.keys()]) {
      if (!underPath(key, path)) continue;
      this.treeDirs.delete(key);
      this.watchers?.remove(key);
    }
  }

  /** Move a skill's watchers from the folders it had to the folders it has. */
  retarget(folder: string, before: readonly string[], after: readonly string[]): void {
    const keep = new Set(after);
    for (const dir of before) {
      if (keep.has(dir) || this.owners.get(dir) !== folder) continue;
      this.owners.delete(dir);
      this.watchers?.remove(dir);
    }
    for (const dir of after) {
      this.owners.set(dir, folder);
      this.watchers?.add(dir);
    }
  }

  /** After a full index: track exactly these tree folders and skill folders. */
  async replaceAll(treeDirs: Map<string, TreeDir>, folders: ReadonlyMap<string, IndexedFolder>): Promise<void> {
    this.treeDirs = treeDirs;
    this.owners.clear();
    for (const [folder, entry] of folders) for (const dir of entry.watchDirs) this.owners.set(dir, folder);
    await this.watchers?.sync(new Set([...treeDirs.keys(), ...this.owners.keys()]));
  }

  close(): void {
    this.debouncer?.cancel();
    this.watchers?.closeAll();
  }

  private record(dir: string, filename: string | null): void {
    const owner = this.owners.get(dir);
    const tree = this.treeDirs.get(dir);
    if (owner !== undefined) this.pending.folders.add(owner);
    else if (tree && filename !== null) this.pending.children.set(`${dir}/${filename}`, { rootIndex: tree.rootIndex, depth: tree.depth + 1 });
    else if (tree) this.pending.full = true;
    else return;
    this.debouncer?.poke();
  }
}
