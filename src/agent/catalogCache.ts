import type { WorldSettings } from '../config.ts';
import { renderCatalog } from '../skills/catalog.ts';
import type { SkillSnapshot } from '../skills/types.ts';

/**
 * The catalog text per (snapshot, allowed skills). Worlds that allow every skill share the snapshot's own
 * catalog; a world limited to some skills gets its own, rendered once per snapshot: same skills, same bytes.
 */
export class CatalogCache {
  private version = -1;

  constructor(private readonly budgetChars: number) {}

  private readonly byAllowList = new Map<string, string>();

  forWorld(snapshot: SkillSnapshot, settings: WorldSettings): string {
    if (settings.skills.includes('*')) return snapshot.catalog.text;
    if (snapshot.version !== this.version) {
      this.byAllowList.clear();
      this.version = snapshot.version;
    }
    const key = [...settings.skills].sort().join('\n');
    const cached = this.byAllowList.get(key);
    if (cached !== undefined) return cached;
    const allowed = new Set(settings.skills);
    const text = renderCatalog(
      snapshot.list().filter((skill) => allowed.has(skill.id)),
      { budgetChars: this.budgetChars },
    ).text;
    this.byAllowList.set(key, text);
    return text;
  }
}
