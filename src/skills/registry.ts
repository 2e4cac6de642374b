// The registry: the one source of truth for skills. It indexes the SKILLS_DIRS roots into an immutable
// snapshot, watches them, and swaps in a new snapshot when skills change. A turn takes `current()` once at
// its start and uses that snapshot throughout, so a reload lands between turns, never in the middle of one.
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { silentLogger, type Logger } from '../log.ts';
import { Debouncer } from './debouncer.ts';
import { DirWatchers } from './dirWatchers.ts';
import { FolderScanner, type ScannedFolder } from './folderScanner.ts';
import { indexScannedFolder, type IndexedFolder } from './indexSkill.ts';
import { folderDepth, sameOutcome, underPath } from './registryPaths.ts';
import { SCAN_LIMITS } from './scanLimits.ts';
import { IndexedSnapshot } from './snapshot.ts';
import type { CatalogEntry } from './catalog.ts';
import type { CatalogResult, Skill, SkillSnapshot } from './types.ts';

export interface SkillRegistryOptions {
  /** Skill roots in priority order (SKILLS_DIRS): an earlier root wins a name clash. */
  roots: string[];
  logger?: Logger;
  /** Size budget of the catalog, in characters. */
  catalogBudgetChars?: number;
  /** Watch the roots and reload changed skills (default true). */
  watch?: boolean;
  /** Quiet time after the last file event before reloading (default 150 ms). */
  debounceMs?: number;
}

const DEFAULT_DEBOUNCE_MS = 150;
const MAX_WAIT_MS = 2000;

interface TreeDir {
  rootIndex: number;
  depth: number;
}

export class SkillRegistry {
  private snapshot: IndexedSnapshot;
  /** Every indexed folder; snapshots copy what they need, so this is updated in place. */
  private folders = new Map<string, IndexedFolder>();
  /** Searched non-skill folders (roots, groups), watched for skills appearing and disappearing. */
  private treeDirs = new Map<string, TreeDir>();
  /** Watched folder inside a skill → that skill's folder. */
  private readonly watchOwners = new Map<string, string>();
  private readonly pending = { folders: new Set<string>(), children: new Map<string, TreeDir>(), full: false };
  private readonly listeners = new Set<(snapshot: SkillSnapshot) => void>();
  private readonly scanner = new FolderScanner();
  /** Catalog lines by skill, reused by the next snapshot for skills that did not change. */
  private readonly catalogEntries = new WeakMap<Skill, CatalogEntry>();
  private watchers: DirWatchers | undefined;
  private debouncer: Debouncer | undefined;
  private queue: Promise<void> = Promise.resolve();
  private version = 0;
  private closed = false;
  private unreadable: string[] = [];

  private constructor(
    private readonly roots: readonly string[],
    private readonly logger: Logger,
    private readonly catalogBudgetChars: number | undefined,
  ) {
    this.snapshot = this.makeSnapshot();
  }

  /** Index every root (and start watching unless `watch: false`). Problems in skills never reject. */
  static async open(options: SkillRegistryOptions): Promise<SkillRegistry> {
    const roots = options.roots.map((root) => resolve(root));
    const registry = new SkillRegistry(roots, options.logger ?? silentLogger(), options.catalogBudgetChars);
    await registry.indexAll();
    if (options.watch ?? true) {
      registry.watchers = new DirWatchers((dir, name) => registry.onFileEvent(dir, name), registry.logger);
      registry.debouncer = new Debouncer(options.debounceMs ?? DEFAULT_DEBOUNCE_MS, MAX_WAIT_MS, () => {
        void registry.enqueue(() => registry.applyPending());
      });
      await registry.syncAllWatchers();
    }
    return registry;
  }

  /** The snapshot to use for one whole turn. */
  current(): SkillSnapshot {
    return this.snapshot;
  }

  /** Roots that could not be read at the last full index. */
  get unreadableRoots(): readonly string[] {
    return this.unreadable;
  }

  /** Rescan every root now. */
  reload(): Promise<void> {
    return this.enqueue(() => this.indexAll());
  }

  /** Called with each new snapshot. Returns an unsubscribe function. */
  onChange(listener: (snapshot: SkillSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop watching. The current snapshot stays usable. */
  async close(): Promise<void> {
    this.closed = true;
    this.debouncer?.cancel();
    this.watchers?.closeAll();
    await this.queue;
    await this.scanner.close();
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.closed) return;
      try {
        await work();
      } catch (err) {
        this.logger.error({ err }, 'skills: reload failed; keeping the previous snapshot');
      }
    });
    return this.queue;
  }

  private makeSnapshot(): IndexedSnapshot {
    return new IndexedSnapshot(this.version, this.folders.values(), {
      ...(this.catalogBudgetChars === undefined ? {} : { catalogBudgetChars: this.catalogBudgetChars }),
      catalogEntries: this.catalogEntries,
      onCatalog: (catalog: CatalogResult) => {
        if (catalog.dropped.length > 0) {
          this.logger.warn({ dropped: catalog.dropped }, 'skills: catalog budget reached; skills left out of the catalog');
        }
      },
    });
  }

  private publish(changed: readonly IndexedFolder[]): void {
    this.version += 1;
    this.snapshot = this.makeSnapshot();
    // Rendered now, between turns, rather than by the first turn that needs it.
    void this.snapshot.catalog;
    for (const entry of changed) {
      if (entry.invalid) this.logger.warn({ folder: entry.folder, errors: entry.invalid.errors }, 'skills: invalid skill');
    }
    for (const shadow of this.snapshot.shadowed) {
      this.logger.info({ id: shadow.id, folder: shadow.folder, winner: shadow.winner }, 'skills: shadowed skill');
    }
    for (const listener of this.listeners) {
      try {
        listener(this.snapshot);
      } catch (err) {
        this.logger.error({ err }, 'skills: change listener failed');
      }
    }
  }

  private async indexAll(): Promise<void> {
    const started = performance.now();
    this.pending.folders.clear();
    this.pending.children.clear();
    this.pending.full = false;
    const folders = new Map<string, IndexedFolder>();
    const treeDirs = new Map<string, TreeDir>();
    const unreadable: string[] = [];
    // Roots in order, so that a folder under two overlapping roots belongs to the earlier one.
    for (const [rootIndex, root] of this.roots.entries()) {
      const tree = await this.scanner.index({ path: root, index: rootIndex }, { path: root, depth: 0 }, (batch) => {
        for (const entry of this.indexBatch(batch)) if (!folders.has(entry.folder)) folders.set(entry.folder, entry);
      });
      if (tree.unreadable !== undefined) unreadable.push(root);
      if (tree.truncated) this.logger.warn({ root }, `skills: stopped searching after ${SCAN_LIMITS.maxFolders} folders`);
      for (const dir of tree.treeDirs) treeDirs.set(dir.path, { rootIndex, depth: dir.depth });
    }
    if (this.closed) return;
    this.folders = folders;
    this.treeDirs = treeDirs;
    this.unreadable = unreadable;
    for (const root of unreadable) this.logger.warn({ root }, 'skills: cannot read skills root');
    this.publish([...folders.values()]);
    if (this.watchers) await this.syncAllWatchers();
    const snapshot = this.snapshot;
    this.logger.info(
      { skills: snapshot.list().length, invalid: snapshot.invalid.length, shadowed: snapshot.shadowed.length, ms: Math.round(performance.now() - started) },
      'skills: indexed',
    );
  }

  private indexBatch(batch: readonly ScannedFolder[]): IndexedFolder[] {
    return batch.map((scanned) => indexScannedFolder(scanned, 'runtime'));
  }

  private onFileEvent(dir: string, filename: string | null): void {
    if (this.closed || !this.debouncer) return;
    const owner = this.watchOwners.get(dir);
    const tree = this.treeDirs.get(dir);
    if (owner !== undefined) this.pending.folders.add(owner);
    else if (tree && filename !== null) {
      this.pending.children.set(`${dir}/${filename}`, { rootIndex: tree.rootIndex, depth: tree.depth + 1 });
    } else if (tree) this.pending.full = true;
    else return;
    this.debouncer.poke();
  }

  /** Apply the file events gathered since the last reload: reindex only the folders they touch. */
  private async applyPending(): Promise<void> {
    if (this.pending.full) return this.indexAll();
    const started = performance.now();
    const edited = new Set(this.pending.folders);
    const rediscover = new Map(this.pending.children);
    this.pending.folders.clear();
    this.pending.children.clear();
    // A known skill folder named by its parent's event is reindexed like an edited one.
    for (const path of [...rediscover.keys()]) {
      if (this.folders.has(path)) {
        edited.add(path);
        rediscover.delete(path);
      }
    }
    /** Folder → its new entry, or null when it is no longer a skill. Applied at the end, all at once. */
    const updates = new Map<string, IndexedFolder | null>();
    const known = [...edited].flatMap((folder) => {
      const old = this.folders.get(folder);
      return old ? [{ root: old.root, rootIndex: old.rootIndex, folder }] : [];
    });
    const rescanned = await this.scanner.scan(known);
    known.forEach((place, i) => {
      const scanned = rescanned[i];
      if (scanned) updates.set(place.folder, indexScannedFolder(scanned, 'runtime'));
      else {
        // No longer a skill: it may be gone, or now be a group of skills.
        updates.set(place.folder, null);
        rediscover.set(place.folder, { rootIndex: place.rootIndex, depth: folderDepth(place.root, place.folder) });
      }
    });
    for (const [path, place] of rediscover) {
      // What was known under `path` is replaced by what is there now.
      for (const key of this.folders.keys()) if (underPath(key, path) && !updates.has(key)) updates.set(key, null);
      for (const key of [...this.treeDirs.keys()]) if (underPath(key, path)) this.dropTreeDir(key);
      const root = this.roots[place.rootIndex];
      if (root === undefined || place.depth > SCAN_LIMITS.maxSkillDepth) continue;
      const tree = await this.scanner.index({ path: root, index: place.rootIndex }, { path, depth: place.depth }, (batch) => {
        for (const entry of this.indexBatch(batch)) if (!updates.get(entry.folder)) updates.set(entry.folder, entry);
      });
      for (const dir of tree.treeDirs) this.addTreeDir(dir.path, { rootIndex: place.rootIndex, depth: dir.depth });
    }
    if (this.closed) return;

    const changed: IndexedFolder[] = [];
    let removed = 0;
    for (const [folder, entry] of updates) {
      const old = this.folders.get(folder);
      if (entry === null) {
        if (!old) continue;
        removed += 1;
        this.folders.delete(folder);
        this.retargetWatchers(folder, old.watchDirs, []);
        continue;
      }
      if (!old || !sameOutcome(old, entry)) changed.push(entry);
      this.folders.set(folder, entry);
      this.retargetWatchers(folder, old?.watchDirs ?? [], entry.watchDirs);
    }
    if (changed.length === 0 && removed === 0) return;
    this.publish(changed);
    this.logger.info(
      { version: this.version, changed: changed.map((e) => e.folder), removed, ms: Math.round(performance.now() - started) },
      'skills: reloaded',
    );
  }

  private addTreeDir(path: string, dir: TreeDir): void {
    this.treeDirs.set(path, dir);
    this.watchers?.add(path);
  }

  private dropTreeDir(path: string): void {
    this.treeDirs.delete(path);
    this.watchers?.remove(path);
  }

  private retargetWatchers(folder: string, before: readonly string[], after: readonly string[]): void {
    const keep = new Set(after);
    for (const dir of before) {
      if (keep.has(dir) || this.watchOwners.get(dir) !== folder) continue;
      this.watchOwners.delete(dir);
      this.watchers?.remove(dir);
    }
    for (const dir of after) {
      this.watchOwners.set(dir, folder);
      this.watchers?.add(dir);
    }
  }

  private async syncAllWatchers(): Promise<void> {
    this.watchOwners.clear();
    for (const [folder, entry] of this.folders) for (const dir of entry.watchDirs) this.watchOwners.set(dir, folder);
    await this.watchers?.sync(new Set([...this.treeDirs.keys(), ...this.watchOwners.keys()]));
  }
}
