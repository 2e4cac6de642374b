import { worldAllowsSkill, type WorldSettings } from '../config/config.ts';
import { catalogEntry, renderCatalogEntries } from '../skills/catalog.ts';
import type { SkillSnapshot } from '../skills/types.ts';

export interface WorldCatalog {
  text: string;
  /** False when the budget left skills out: the model then gets find_skills. */
  complete: boolean;
}

/** Views kept per snapshot at most: a server whose listing keeps changing must not grow the cache without end. */
const MAX_VIEWS = 256;

/**
 * The catalog text per (snapshot, allowed skills, skills installed for other worlds, MCP servers' skills). Worlds
 * that allow every skill, hide none of the snapshot's and have no server skills share the snapshot's own catalog;
 * any other world gets its own, rendered once per snapshot and server listing: same skills, same bytes. A skill
 * installed for one world is hidden from every other one, `skills: '*'` or not.
 */
export class CatalogCache {
  private version = -1;

  constructor(private readonly budgetChars: number) {}

  private readonly byWorldView = new Map<string, WorldCatalog>();

  /**
   * The catalog text, and whether it lists every skill the model may use here (else find_skills is offered).
   * `server`: the lines of the MCP servers' skills the world may use (turnServerSkills.ts), beside the snapshot's.
   */
  forWorld(snapshot: SkillSnapshot, settings: WorldSettings, server: ReadonlyArray<{ id: string; description: string }> = []): WorldCatalog {
    const hidden = (settings.notHere ?? []).filter((id) => snapshot.get(id) !== undefined);
    if (settings.skills.includes('*') && hidden.length === 0 && server.length === 0) return { text: snapshot.catalog.text, complete: snapshot.catalog.dropped.length === 0 };
    if (snapshot.version !== this.version || this.byWorldView.size >= MAX_VIEWS) {
      this.byWorldView.clear();
      this.version = snapshot.version;
    }
    const serverKey = server.map((line) => `${line.id}\t${line.description}`).join('\n');
    const key = `${[...settings.skills].sort().join('\n')}\n\n${hidden.sort().join('\n')}\n\n${serverKey}`;
    const cached = this.byWorldView.get(key);
    if (cached !== undefined) return cached;
    const local = snapshot.list().filter((skill) => worldAllowsSkill(settings, skill.id) && !skill.disableModelInvocation);
    const entries = [...local, ...server].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(catalogEntry);
    const result = renderCatalogEntries(entries, this.budgetChars);
    const catalog = { text: result.text, complete: result.dropped.length === 0 };
    this.byWorldView.set(key, catalog);
    return catalog;
  }
}
