// The registry: the one source of truth for skills. It indexes the SKILLS_DIRS roots into an immutable
// snapshot, watches them, and swaps in a new snapshot when skills change. A turn takes `current()` once at
// its start and uses that snapshot throughout, so a reload lands between turns, never in the middle of one.
import { performance } from 'node:perf_hooks';
import { dirname, resolve } from 'node:path';
import { silentLogger, type Logger } from '../ops/log.ts';
import { type FolderHash, FolderScanner, type ScannedFolder } from './folderScanner.ts';
import { indexScannedFolder, type IndexedFolder } from './indexSkill.ts';
import { folderDepth, sameOutcome, underPath } from './registryPaths.ts';
import { RegistryWatch, type TreeDir } from './registryWatch.ts';
import { SCAN_LIMITS } from './scanLimits.ts';
import { expandSkillRoots, type SkillRoot } from './skillRoots.ts';
import { SkillSearchIndex } from './skillSearch.ts';
import { followSnapshot, IndexedSnapshot, type SkillEdit, type SnapshotOptions } from './snapshot.ts';
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

export class SkillRegistry {
  private snapshot: IndexedSnapshot;
  /** Every indexed folder; snapshots copy what they need, so this is updated in place. */
  private folders = new Map<string, IndexedFolder>();
  private readonly watch: RegistryWatch;
  private readonly listeners = new Set<(snapshot: SkillSnapshot) => void>();
  private readonly scanner = new FolderScanner();
  /** Catalog lines by skill, reused by the next snapshot for skills that did not change. */
  private readonly catalogEntries = new WeakMap<Skill, CatalogEntry>();
  /** find_skills' index, updated by what each reload changed. */
  private readonly searchIndex = new SkillSearchIndex();
  private queue: Promise<void> = Promise.resolve();
  private version = 0;
  private closed = false;
  private unreadable: string[] = [];
  /** The scan roots the SKILLS_DIRS entries stand for (a marketplace is several), found at each full index. */
  private roots: readonly SkillRoot[] = [];

  private constructor(
    private readonly entries: readonly string[],
    private readonly logger: Logger,
    private readonly catalogBudgetChars: number | undefined,
    options: { watch: boolean; debounceMs: number },
  ) {
    this.snapshot = this.makeSnapshot();
    const onReady = (): void => void this.enqueue(() => this.applyPending());
    this.watch = new RegistryWatch(logger, { debounceMs: options.debounceMs, ...(options.watch ? { onReady } : {}) });
  }

  /** Index every root (and start watching unless `watch: false`). Problems in skills never reject. */
  static async open(options: SkillRegistryOptions): Promise<SkillRegistry> {
    const roots = options.roots.map((root) => resolve(root));
    const registry = new SkillRegistry(roots, options.logger ?? silentLogger(), options.catalogBudgetChars, {
      watch: options.watch ?? true,
      debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
    });
    await registry.indexAll();
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

  /**
   * The content hash of any folder by the registry's own algorithm (see FolderScanner.hashFolder): what the
   * executor checks a run's copy of a skill against before it runs it.
   */
  hashFolder(dir: string): Promise<FolderHash> {
    return this.scanner.hashFolder(dir);
  }

  /**
   * A folder outside the roots (an MCP server's verified skill, src/mcp/serverSkillCatalog.ts) read and validated
   * as the registry's own are: the skill, or why the folder is not one. It never joins a snapshot.
   */
  async indexFolder(dir: string): Promise<{ skill: Skill } | { why: string }> {
    const [scanned] = await this.scanner.scan([{ root: dirname(dir), rootIndex: -1, folder: dir }]);
    if (!scanned) return { why: 'its folder holds no SKILL.md' };
    const entry = indexScannedFolder(scanned, 'runtime');
    return entry.skill ? { skill: entry.skill } : { why: entry.invalid?.errors.map((problem) => problem.message).join('; ') ?? 'it is not a valid skill' };
  }

  /** Called with each new snapshot. Returns an unsubscribe function. */
  onChange(listener: (snapshot: SkillSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop watching. The current snapshot stays usable. */
  async close(): Promise<void> {
    this.closed = true;
    this.watch.close();
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

  private makeSnapshot(edits?: readonly SkillEdit[]): IndexedSnapshot {
    const options = this.snapshotOptions();
    // Most reloads replace skills by new versions of the same ids: derive from the current snapshot instead.
    const derived = edits && edits.length > 0 ? IndexedSnapshot.edited(this.snapshot, this.version, edits, options) : undefined;
    return derived ?? new IndexedSnapshot(this.version, this.folders.values(), options);
  }

  private snapshotOptions(): SnapshotOptions {
    return {
      origins: new Map(this.roots.map((root) => [root.path, root.origin])),
      ...(this.catalogBudgetChars === undefined ? {} : { catalogBudgetChars: this.catalogBudgetChars }),
      catalogEntries: this.catalogEntries,
      searchIndex: this.searchIndex,
      onCatalog: (catalog: CatalogResult) => {
        if (catalog.dropped.length > 0) {
          // The count and the first ids: thousands of ids on every reload would cost more than the reload.
          this.logger.warn({ dropped: catalog.dropped.length, first: catalog.dropped.slice(0, 20) }, 'skills: catalog budget reached; skills left out of the catalog (find_skills searches them)');
        }
      },
    };
  }

  private publish(changed: readonly IndexedFolder[], edits?: readonly SkillEdit[]): void {
    const previous = this.snapshot;
    this.version += 1;
    this.snapshot = this.makeSnapshot(edits);
    // Rendered and indexed now, between turns, rather than by the first turn that needs it.
    void this.snapshot.catalog;
    followSnapshot(this.searchIndex, previous, this.snapshot, edits, (snapshot) => this.snapshot === snapshot);
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
    this.watch.take();
    const folders = new Map<string, IndexedFolder>();
    const treeDirs = new Map<string, TreeDir>();
    const unreadable: string[] = [];
    const expanded = await expandSkillRoots(this.entries);
    for (const problem of expanded.problems) this.logger.warn({ problem }, 'skills: a skills root is not what it claims');
    this.roots = expanded.roots;
    // Roots in order, so that a folder under two overlapping roots belongs to the earlier one.
    for (const [rootIndex, { path: root }] of this.roots.entries()) {
      const tree = await this.scanner.index({ path: root, index: rootIndex }, { path: root, depth: 0 }, (batch) => {
        for (const entry of this.indexBatch(batch)) if (!folders.has(entry.folder)) folders.set(entry.folder, entry);
      });
      if (tree.unreadable !== undefined) unreadable.push(root);
      if (tree.truncated) this.logger.warn({ root }, `skills: stopped searching after ${SCAN_LIMITS.maxFolders} folders`);
      for (const dir of tree.treeDirs) treeDirs.set(dir.path, { rootIndex, depth: dir.depth });
    }
    if (this.closed) return;
    this.folders = folders;
    this.unreadable = unreadable;
    for (const root of unreadable) this.logger.warn({ root }, 'skills: cannot read skills root');
    this.publish([...folders.values()]);
    await this.watch.replaceAll(treeDirs, folders);
    const snapshot = this.snapshot;
    this.logger.info(
      { skills: snapshot.list().length, invalid: snapshot.invalid.length, shadowed: snapshot.shadowed.length, ms: Math.round(performance.now() - started) },
      'skills: indexed',
    );
  }

  private indexBatch(batch: readonly ScannedFolder[]): IndexedFolder[] {
    return batch.map((scanned) => indexScannedFolder(scanned, 'runtime'));
  }

  /** Apply the file events gathered since the last reload: reindex only the folders they touch. */
  private async applyPending(): Promise<void> {
    const changes = this.watch.take();
    if (changes.full) return this.indexAll();
    try {
      await this.applyChanges(changes.folders, changes.children);
    } catch (err) {
      // The events are consumed: the next one rescans everything rather than lose an edit.
      this.watch.requestFull();
      throw err;
    }
  }

  private async applyChanges(edited: Set<string>, rediscover: Map<string, TreeDir>): Promise<void> {
    const started = performance.now();
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
      this.watch.dropTreeDirsUnder(path);
      const root = this.roots[place.rootIndex]?.path;
      if (root === undefined || place.depth > SCAN_LIMITS.maxSkillDepth) continue;
      const tree = await this.scanner.index({ path: root, index: place.rootIndex }, { path, depth: place.depth }, (batch) => {
        for (const entry of this.indexBatch(batch)) if (!updates.get(entry.folder)) updates.set(entry.folder, entry);
      });
      for (const dir of tree.treeDirs) this.watch.addTreeDir(dir.path, { rootIndex: place.rootIndex, depth: dir.depth });
    }
    if (this.closed) return;

    const changed: IndexedFolder[] = [];
    /** Skills replaced by a new version under the same id, when that is all that changed. */
    let edits: SkillEdit[] | undefined = [];
    let removed = 0;
    for (const [folder, entry] of updates) {
      const old = this.folders.get(folder);
      if (entry === null) {
        if (!old) continue;
        edits = undefined;
        removed += 1;
        this.folders.delete(folder);
        this.watch.retarget(folder, old.watchDirs, []);
        continue;
      }
      if (!old || !sameOutcome(old, entry)) {
        changed.push(entry);
        if (old?.skill && entry.skill) edits?.push({ before: old.skill, after: entry.skill });
        else edits = undefined;
      }
      this.folders.set(folder, entry);
      this.watch.retarget(folder, old?.watchDirs ?? [], entry.watchDirs);
    }
    if (changed.length === 0 && removed === 0) return;
    this.publish(changed, edits);
    this.logger.info(
      { version: this.version, changed: changed.map((e) => e.folder), removed, ms: Math.round(performance.now() - started) },
      'skills: reloaded',
    );
  }
}
