import { worldAllowsSkill, type WorldSettings } from '../config/config.ts';
import { renderCatalog } from '../skills/catalog.ts';
import type { SkillSnapshot } from '../skills/types.ts';

export interface WorldCatalog {
  text: string;
  /** False when the budget left skills out: the model then gets find_skills. */
  complete: boolean;
}

/**
 * The catalog text per (snapshot, allowed skills, skills installed for other worlds). Worlds that allow every
 * skill and hide none of the snapshot's share the snapshot's own catalog; any other world gets its own, rendered
 * once per snapshot: same skills, same bytes. A skill installed for one world is hidden from every other one,
 * `skills: '*'` or not.
 */
export class CatalogCache {
  private version = -1;

  constructor(private readonly budgetChars: number) {}

  private readonly byWorldView = new Map<string, WorldCatalog>();

  /** The catalog text, and whether it lists every skill the model may use here (else find_skills is offered). */
  forWorld(snapshot: SkillSnapshot, settings: WorldSettings): WorldCatalog {
    const hidden = (settings.notHere ?? []).filter((id) => snapshot.get(id) !== undefined);
    if (settings.skills.includes('*') && hidden.length === 0) return { text: snapshot.catalog.text, complete: snapshot.catalog.dropped.length === 0 };
    if (snapshot.version !== this.version) {
      this.byWorldView.clear();
      this.version = snapshot.version;
    }
    const key = `${[...settings.skills].sort().join('\n')}\n\n${hidden.sort().join('\n')}`;
    const cached = this.byWorldView.get(key);
    if (cached !== undefined) return cached;
    const result = renderCatalog(
      snapshot.list().filter((skill) => worldAllowsSkill(settings, skill.id) && !skill.disableModelInvocation),
      { budgetChars: this.budgetChars },
    );
    const catalog = { text: result.text, complete: result.dropped.length === 0 };
    this.byWorldView.set(key, catalog);
    return catalog;
  }
}
