// One immutable view of every skill, built from indexed folders. It answers a turn without touching disk.
// Built in linear time (plus one sort of the ids): a reload at 10,000 skills must stay within milliseconds.
import { catalogEntry, renderCatalogEntries, type CatalogEntry } from './catalog.ts';
import { IdIndex } from './closest.ts';
import type { IndexedFolder } from './indexSkill.ts';
import { SkillSearchIndex } from './skillSearch.ts';
import type { CatalogResult, InvalidSkill, SearchHit, ShadowedSkill, Skill, SkillSnapshot } from './types.ts';

/** Whether `a` wins a name clash against `b`: the earlier root, then the folder path that sorts first. */
function placedBefore(a: IndexedFolder, b: IndexedFolder): boolean {
  return a.rootIndex !== b.rootIndex ? a.rootIndex < b.rootIndex : a.folder < b.folder;
}

function byPlace(a: IndexedFolder, b: IndexedFolder): number {
  if (a.rootIndex !== b.rootIndex) return a.rootIndex - b.rootIndex;
  return a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0;
}

export interface SnapshotOptions {
  catalogBudgetChars?: number;
  /** Told once, when the catalog is first rendered (the registry logs dropped skills). */
  onCatalog?: (catalog: CatalogResult) => void;
  /** Catalog lines of skills already seen, kept by the registry so a reload renders only new skills' lines. */
  catalogEntries?: WeakMap<Skill, CatalogEntry>;
  /**
   * The registry's search index, kept in step one skill at a time; it may already hold a newer reload's skills,
   * so answers are narrowed to this snapshot's own. Without it the snapshot indexes its skills on first search.
   */
  searchIndex?: SkillSearchIndex;
  /** Scan root → where it came from (`folder`, `Claude Code project`, `plugin NAME (marketplace M)`). */
  origins?: ReadonlyMap<string, string>;
}

/** A new version of a skill that keeps its id (the common edit): the next snapshot can be derived by replacement. */
export interface SkillEdit {
  before: Skill;
  after: Skill;
}

export class IndexedSnapshot implements SkillSnapshot {
  readonly invalid: readonly InvalidSkill[];
  readonly shadowed: readonly ShadowedSkill[];
  private readonly byId: ReadonlyMap<string, Skill>;
  private readonly sorted: readonly Skill[];
  /** Id → place in `sorted`; shared by snapshots derived by `edited`, whose ids and order are the same. */
  private positions: Map<string, number> | undefined;

  /**
   * The snapshot after `edits`, derived from `previous` in linear copying time with no sort and no clash
   * resolution: undefined unless every edit replaces the winning skill of an id that nothing shadows (then the
   * ids, their order, the invalid and the shadowed are exactly the previous ones). The caller builds in full.
   */
  static edited(previous: IndexedSnapshot, version: number, edits: readonly SkillEdit[], options: SnapshotOptions = {}): IndexedSnapshot | undefined {
    const contested = new Set(previous.shadowed.map((entry) => entry.id));
    for (const { before, after } of edits) {
      if (after.id !== before.id || previous.byId.get(before.id) !== before || contested.has(before.id)) return undefined;
    }
    previous.positions ??= new Map(previous.sorted.map((skill, index) => [skill.id, index]));
    const byId = new Map(previous.byId);
    const sorted = [...previous.sorted];
    for (const { after } of edits) {
      byId.set(after.id, after);
      sorted[previous.positions.get(after.id) ?? -1] = after;
    }
    const next = new IndexedSnapshot(version, [], options, { byId, sorted: Object.freeze(sorted), invalid: previous.invalid, shadowed: previous.shadowed });
    next.positions = previous.positions;
    return next;
  }
  private catalogResult: CatalogResult | undefined;
  private idIndex: IdIndex | undefined;
  private ownIndex: SkillSearchIndex | undefined;

  /** `folders` in any order. Invalid folders claim no name. */
  constructor(
    readonly version: number,
    folders: Iterable<IndexedFolder>,
    private readonly options: SnapshotOptions = {},
    derived?: { byId: ReadonlyMap<string, Skill>; sorted: readonly Skill[]; invalid: readonly InvalidSkill[]; shadowed: readonly ShadowedSkill[] },
  ) {
    if (derived) {
      this.byId = derived.byId;
      this.sorted = derived.sorted;
      this.invalid = derived.invalid;
      this.shadowed = derived.shadowed;
      return;
    }
    const winners = new Map<string, IndexedFolder>();
    const valid: IndexedFolder[] = [];
    const invalid: IndexedFolder[] = [];
    for (const entry of folders) {
      if (entry.skill) {
        valid.push(entry);
        const current = winners.get(entry.skill.id);
        if (!current || placedBefore(entry, current)) winners.set(entry.skill.id, entry);
      } else if (entry.invalid) invalid.push(entry);
    }
    const losers: IndexedFolder[] = valid.length > winners.size ? valid.filter((e) => winners.get(e.skill?.id ?? '') !== e) : [];
    const byId = new Map<string, Skill>();
    for (const id of [...winners.keys()].sort()) {
      const skill = winners.get(id)?.skill;
      if (skill) byId.set(id, skill);
    }
    this.byId = byId;
    this.sorted = Object.freeze([...byId.values()]);
    this.invalid = Object.freeze(invalid.sort(byPlace).flatMap((e) => (e.invalid ? [e.invalid] : [])));
    this.shadowed = Object.freeze(
      losers.sort(byPlace).map((e): ShadowedSkill => {
        const id = e.skill?.id ?? '';
        return Object.freeze({ id, folder: e.folder, root: e.root, winner: winners.get(id)?.folder ?? '' });
      }),
    );
  }

  get(id: string): Skill | undefined {
    return this.byId.get(id);
  }

  list(): readonly Skill[] {
    return this.sorted;
  }

  originOf(skill: Pick<Skill, 'root'>): string {
    return this.options.origins?.get(skill.root) ?? 'folder';
  }

  search(query: string, options: { limit?: number; accept?: (skill: Skill) => boolean } = {}): SearchHit[] {
    this.ownIndex ??= this.options.searchIndex ?? new SkillSearchIndex();
    // Usually in step already (the registry syncs after each reload); a turn holding an older snapshot re-syncs
    // only what differs, and its answers are narrowed to its own skills below either way.
    if (this.ownIndex.syncedVersion !== this.version) {
      this.ownIndex.sync(this.sorted);
      this.ownIndex.syncedVersion = this.version;
    }
    const accept = options.accept;
    return this.ownIndex.search(query, {
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      accept: (skill) => this.byId.get(skill.id) === skill && (accept === undefined || accept(skill)),
    });
  }

  closest(id: string, n = 3): string[] {
    this.idIndex ??= new IdIndex([...this.byId.keys()]);
    return this.idIndex.closest(id, n);
  }

  /** Rendered on first use, then kept: the same snapshot always gives the same bytes. */
  get catalog(): CatalogResult {
    if (this.catalogResult === undefined) {
      const cache = this.options.catalogEntries;
      const entries = this.sorted
        .filter((skill) => !skill.disableModelInvocation)
        .map((skill) => {
          let entry = cache?.get(skill);
          if (!entry) {
            entry = catalogEntry(skill);
            cache?.set(skill, entry);
          }
          return entry;
        });
      this.catalogResult = renderCatalogEntries(entries, this.options.catalogBudgetChars);
      this.options.onCatalog?.(this.catalogResult);
    }
    return this.catalogResult;
  }
}

/**
 * find_skills' index follows each reload by what changed. Its first build (only needed once the catalog leaves
 * skills out) waits for the next turn of the event loop, so opening the registry does not pay for it; a
 * search before then builds it itself. `isCurrent`: whether `snapshot` is still the registry's.
 */
export function followSnapshot(
  index: SkillSearchIndex,
  previous: IndexedSnapshot,
  snapshot: IndexedSnapshot,
  edits: readonly SkillEdit[] | undefined,
  isCurrent: (snapshot: IndexedSnapshot) => boolean,
): void {
  const inStep = index.syncedVersion === previous.version && index.size > 0;
  if (edits && edits.length > 0 && inStep && edits.every(({ after }) => snapshot.get(after.id) === after)) {
    // The index followed the previous snapshot and only these skills changed: re-read them alone.
    for (const { after } of edits) index.put(after);
    index.syncedVersion = snapshot.version;
    return;
  }
  const sync = (): void => {
    if (!isCurrent(snapshot) || index.syncedVersion === snapshot.version) return;
    index.sync(snapshot.list());
    index.syncedVersion = snapshot.version;
  };
  if (index.size > 0) sync();
  else if (snapshot.catalog.dropped.length > 0) setImmediate(sync);
}
