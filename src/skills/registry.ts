// The registry: the one source of truth for skills. It indexes the SKILLS_DIRS roots into an immutable
// snapshot, watches them, and swaps in a new snapshot when skills change. A turn takes `current()` once at
// its start and uses that snapshot throughout, so a reload lands between turns, never in the middle of one.
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { silentLogger, type Logger } from '../log.ts';
import { Debouncer } from './debouncer.ts';
import { DirWatchers } from './dirWatchers.ts';
import { discoverSkills, DISCOVERY_LIMITS } from './discover.ts';
import { indexSkillFolder, type IndexedFolder } from './indexSkill.ts';
import { Limiter, mapLimited } from './limiter.ts';
import { folderDepth, realAncestors, sameOutcome, underPath } from './registryPaths.ts';
import { IndexedSnapshot } from './snapshot.ts';
import type { CatalogResult, SkillSnapshot } from './types.ts';

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

/** File operations in flight at once, and skill folders indexed at once. */
const FS_CONCURRENCY = 64;
const FOLDERS_IN_FLIGHT = 256;
const DEFAULT_DEBOUNCE_MS = 150;
const MAX_WAIT_MS = 2000;

interface TreeDir {
  rootIndex: number;
  depth: number;
}

export class SkillRegistry {
  private snapshot: IndexedSnapshot;
  private folders = new Map<string, IndexedFolder>();
  /** Searched non-skill folders (roots, groups), watched for skills appearing and disappearing. */
  private treeDirs = new Map<string, TreeDir>();
  /** Watched folder inside a skill → that skill's folder. */
  private readonly watchOwners = new Map<string, string>();
  private readonly pending = { folders: new Set<string>(), children: new Map<string, TreeDir>(), full: false };
  private readonly listeners = new Set<(snapshot: SkillSnapshot) => void>();
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
      registry.syncAllWatchers();
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
    const limiter = new Limiter(FS_CONCURRENCY);
    this.pending.folders.clear();
    this.pending.children.clear();
    this.pending.full = false;
    const discoveries = await Promise.all(
      this.roots.map((path, index) => discoverSkills({ path, index }, { path, depth: 0 }, limiter)),
    );
    const treeDirs = new Map<string, TreeDir>();
    const unreadable: string[] = [];
    discoveries.forEach((found, rootIndex) => {
      const root = this.roots[rootIndex] ?? '';
      if (found.unreadable !== undefined) unreadable.push(root);
      if (found.truncated) this.logger.warn({ root }, `skills: stopped searching after ${DISCOVERY_LIMITS.maxFolders} folders`);
      for (const dir of found.treeDirs) treeDirs.set(dir.path, { rootIndex, depth: dir.depth });
    });
    const places = discoveries.flatMap((found) => found.skills);
    const indexed = await mapLimited(places, FOLDERS_IN_FLIGHT, (place) => indexSkillFolder(place, 'runtime', limiter));
    const folders = new Map<string, IndexedFolder>();
    // The same folder under two overlapping roots belongs to the earlier root.
    for (const entry of indexed) if (entry && !folders.has(entry.folder)) folders.set(entry.folder, entry);
    if (this.closed) return;
    this.folders = folders;
    this.treeDirs = treeDirs;
    this.unreadable = unreadable;
    for (const root of unreadable) this.logger.warn({ root }, 'skills: cannot read skills root');
    this.publish([...folders.values()]);
    if (this.watchers) this.syncAllWatchers();
    const snapshot = this.snapshot;
    this.logger.info(
      { skills: snapshot.list().length, invalid: snapshot.invalid.length, shadowed: snapshot.shadowed.length, ms: Math.round(performance.now() - started) },
      'skills: indexed',
    );
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
    if (edited.size === 0 && rediscover.size === 0) return;

    const limiter = new Limiter(FS_CONCURRENCY);
    const next = new Map(this.folders);
    // A known skill folder named by its parent's event is reindexed like an edited one.
    for (const path of [...rediscover.keys()]) {
      if (next.has(path)) {
        edited.add(path);
        rediscover.delete(path);
      }
    }
    for (const folder of edited) {
      const old = next.get(folder);
      if (!old) continue;
      const entry = await indexSkillFolder({ root: old.root, rootIndex: old.rootIndex, folder }, 'runtime', limiter);
      if (entry) next.set(folder, entry);
      else {
        // No longer a skill: it may be gone, or now be a group of skills.
        next.delete(folder);
        rediscover.set(folder, { rootIndex: old.rootIndex, depth: folderDepth(old.root, folder) });
      }
    }
    for (const [path, place] of rediscover) {
      for (const key of [...next.keys()]) if (underPath(key, path)) next.delete(key);
      for (const key of [...this.treeDirs.keys()]) if (underPath(key, path)) this.dropTreeDir(key);
      const root = this.roots[place.rootIndex];
      if (root === undefined || place.depth > DISCOVERY_LIMITS.maxDepth) continue;
      const above = await realAncestors(root, path);
      const found = await discoverSkills({ path: root, index: place.rootIndex }, { path, depth: place.depth, above }, limiter);
      for (const dir of found.treeDirs) this.addTreeDir(dir.path, { rootIndex: place.rootIndex, depth: dir.depth });
      const indexed = await mapLimited(found.skills, FOLDERS_IN_FLIGHT, (p) => indexSkillFolder(p, 'runtime', limiter));
      for (const entry of indexed) if (entry && !next.has(entry.folder)) next.set(entry.folder, entry);
    }
    if (this.closed) return;

    const changed: IndexedFolder[] = [];
    for (const [folder, entry] of next) {
      const old = this.folders.get(folder);
      if (!old || !sameOutcome(old, entry)) changed.push(entry);
      if (old !== entry) this.retargetWatchers(folder, old?.watchDirs ?? [], entry.watchDirs);
    }
    let removed = 0;
    for (const [folder, old] of this.folders) {
      if (next.has(folder)) continue;
      removed += 1;
      this.retargetWatchers(folder, old.watchDirs, []);
    }
    if (changed.length === 0 && removed === 0) return;
    this.folders = next;
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

  private syncAllWatchers(): void {
    this.watchOwners.clear();
    for (const [folder, entry] of this.folders) for (const dir of entry.watchDirs) this.watchOwners.set(dir, folder);
    this.watchers?.sync(new Set([...this.treeDirs.keys(), ...this.watchOwners.keys()]));
  }
}
