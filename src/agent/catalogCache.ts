import type { WorldSettings } from '../config/config.ts';
import { renderCatalog } from '../skills/catalog.ts';
import type { SkillSnapshot } from '../skills/types.ts';

export interface WorldCatalog {
  text: string;
  /** False when the budget left skills out: the model then gets find_skills. */
  complete: boolean;
}

/**
 * The catalog text per (snapshot, allowed skills). Worlds that allow every skill share the snapshot's own
 * catalog; a world limited to some skills gets its own, rendered once per snapshot: same skills, same bytes.
 */
export class CatalogCache {
  private version = -1;

  constructor(private readonly budgetChars: number) {}

  private readonly byAllowList = new Map<string, WorldCatalog>();

  /** The catalog text, and whether it lists every skill the model may use here (else find_skills is offered). */
  forWorld(snapshot: SkillSnapshot, settings: WorldSettings): WorldCatalog {
    if (settings.skills.includes('*')) return { text: snapshot.catalog.text, complete: snapshot.catalog.dropped.length === 0 };
    if (snapshot.version !== this.version) {
      this.byAllowList.clear();
      this.version = snapshot.version;
    }
    const key = [...settings.skills].sort().join('\n');
    const cached = this.byAllowList.get(key);
    if (cached !== undefined) return cached;
    const allowed = new Set(settings.skills);
    const result = renderCatalog(
      snapshot.list().filter((skill) => allowed.has(skill.id) && !skill.disableModelInvocation),
      { budgetChars: this.budgetChars },
    );
    const catalog = { text: result.text, complete: result.dropped.length === 0 };
    this.byAllowList.set(key, catalog);
    return catalog;
  }
}
