// One immutable view of every skill, built from indexed folders. It answers a turn without touching disk.
import { renderCatalog } from './catalog.ts';
import { closestIds } from './closest.ts';
import type { IndexedFolder } from './indexSkill.ts';
import type { CatalogResult, InvalidSkill, ShadowedSkill, Skill, SkillSnapshot } from './types.ts';

function byPlace(a: IndexedFolder, b: IndexedFolder): number {
  if (a.rootIndex !== b.rootIndex) return a.rootIndex - b.rootIndex;
  return a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0;
}

export interface SnapshotOptions {
  catalogBudgetChars?: number;
  /** Told once, when the catalog is first rendered (the registry logs dropped skills). */
  onCatalog?: (catalog: CatalogResult) => void;
}

export class IndexedSnapshot implements SkillSnapshot {
  readonly invalid: readonly InvalidSkill[];
  readonly shadowed: readonly ShadowedSkill[];
  private readonly byId: ReadonlyMap<string, Skill>;
  private readonly sorted: readonly Skill[];
  private catalogResult: CatalogResult | undefined;

  /**
   * `folders` in any order: an earlier root wins a name clash, then the folder path that sorts first.
   * Invalid folders claim no name.
   */
  constructor(
    readonly version: number,
    folders: Iterable<IndexedFolder>,
    private readonly options: SnapshotOptions = {},
  ) {
    const ordered = [...folders].sort(byPlace);
    const byId = new Map<string, Skill>();
    const invalid: InvalidSkill[] = [];
    const shadowed: ShadowedSkill[] = [];
    for (const entry of ordered) {
      if (entry.skill) {
        const winner = byId.get(entry.skill.id);
        if (winner) shadowed.push({ id: entry.skill.id, folder: entry.folder, root: entry.root, winner: winner.folder });
        else byId.set(entry.skill.id, entry.skill);
      } else if (entry.invalid) invalid.push(entry.invalid);
    }
    this.byId = byId;
    this.sorted = Object.freeze([...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    this.invalid = Object.freeze(invalid);
    this.shadowed = Object.freeze(shadowed);
  }

  get(id: string): Skill | undefined {
    return this.byId.get(id);
  }

  list(): readonly Skill[] {
    return this.sorted;
  }

  closest(id: string, n = 3): string[] {
    return closestIds(id, this.byId.keys(), n);
  }

  /** Rendered on first use, then kept: the same snapshot always gives the same bytes. */
  get catalog(): CatalogResult {
    if (this.catalogResult === undefined) {
      const budget = this.options.catalogBudgetChars;
      this.catalogResult = renderCatalog(
        this.sorted.filter((skill) => !skill.disableModelInvocation),
        budget === undefined ? {} : { budgetChars: budget },
      );
      this.options.onCatalog?.(this.catalogResult);
    }
    return this.catalogResult;
  }
}
