// The skills a world's MCP servers serve, as a turn sees them: listed as `<server>:<path>` (frontmatter only) from
// every server the world may use and can reach, each server's listing kept as long as the server says it may be
// (its `ttlMs`; 0, the SDK's default, lists again each turn, so a changed manifest is seen by the next turn); a
// listed skill fetched, verified and materialised the first time a turn loads or runs it (serverSkills.ts), then
// read and validated like any skill folder. A local skill of the same name wins: the server's is left out.
import type { Client } from '@modelcontextprotocol/client';
import type { Logger } from '../ops/log.ts';
import { stripHidden } from '../text/hidden.ts';
import type { McpScope, McpTools } from './mcpTools.ts';
import { listServerSkills, materializeServerSkill, type ServerSkill } from './serverSkills.ts';

/**
 * A validated skill as the registry makes one (src/skills' Skill): the catalog replaces its id by `<server>:<path>`,
 * and its instructions lose their hidden characters, as a server's tool results do.
 */
export interface FolderSkill {
  readonly id: string;
  readonly body: string;
}

export interface ServerSkillCatalogDeps<S extends FolderSkill> {
  tools: Pick<McpTools, 'serversFor' | 'reach' | 'timeoutMs'>;
  /** MCP_SKILLS_DIR: one folder per (server, manifest digest). */
  root: string;
  logger: Logger;
  /** Reads and validates a materialised folder as the registry reads its own (SkillRegistry.indexFolder). */
  indexFolder: (dir: string) => Promise<{ skill: S } | { why: string }>;
  now?: () => number;
}

export type ServerSkillLoad<S extends FolderSkill> = { ok: true; skill: S } | { ok: false; why: string };

/** A world's server skills for one turn: the listing the turn began with, whatever the servers say meanwhile. */
export interface TurnServerSkills<S extends FolderSkill> {
  /** Listed and not shadowed, sorted by id. */
  readonly listed: readonly ServerSkill[];
  has(id: string): boolean;
  /** The skill ready to load or run (its folder fetched and verified the first time); undefined when not listed. */
  skill(id: string): Promise<ServerSkillLoad<S> | undefined>;
}

interface Listing {
  at: number;
  ttlMs: number;
  skills: Promise<readonly ServerSkill[]>;
}

/** A listing is kept at most this long whatever a server's ttlMs says: a server's skills never go stale for a day. */
const MAX_LISTING_MS = 5 * 60_000;

export class ServerSkillCatalog<S extends FolderSkill> {
  /** By connection: a new connection (a restart, another person's sign-in) lists afresh. */
  private readonly listings = new WeakMap<Client, Listing>();
  /** Validated skills by materialised folder (its name is the manifest digest: the bytes never change under it). */
  private readonly indexed = new Map<string, S>();
  /** Shadowed skills already said in the log (once each, not every turn). */
  private readonly told = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly deps: ServerSkillCatalogDeps<S>) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * The skills of the servers this world may use. `localWins(name)`: a local skill the world may use is named so;
   * a server's skill of that name (its path or its frontmatter name) is then left out, and the log says so once.
   */
  async forTurn(scope: McpScope, localWins: (name: string) => boolean): Promise<TurnServerSkills<S>> {
    const servers = this.deps.tools.serversFor(scope.mcp);
    const lists = await Promise.all(servers.map((server) => this.listed(server.name, scope)));
    const listed = lists.flat().filter((skill) => !this.shadowed(skill, localWins)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const byId = new Map(listed.map((skill) => [skill.id, skill]));
    return {
      listed,
      has: (id) => byId.has(id),
      skill: async (id) => {
        const skill = byId.get(id);
        return skill === undefined ? undefined : this.load(skill, scope);
      },
    };
  }

  private shadowed(skill: ServerSkill, localWins: (name: string) => boolean): boolean {
    const path = skill.id.slice(skill.server.length + 1);
    const name = [path, skill.name].find((candidate) => localWins(candidate));
    if (name === undefined) return false;
    const key = `${skill.id}\0${name}`;
    if (!this.told.has(key)) {
      this.told.add(key);
      this.deps.logger.info({ server: skill.server, skill: skill.id, local: name }, 'MCP server skill left out: a local skill of the same name wins');
    }
    return true;
  }

  /** One server's skills as this person reaches it; none when it cannot be reached or lists none (said in the log). */
  private async listed(server: string, scope: McpScope): Promise<readonly ServerSkill[]> {
    const connection = await this.deps.tools.reach(server, scope);
    if (!connection.ok) return [];
    const now = this.now();
    const kept = this.listings.get(connection.client);
    if (kept !== undefined && now - kept.at < Math.min(kept.ttlMs, MAX_LISTING_MS)) return kept.skills;
    const entry: Listing = { at: now, ttlMs: 0, skills: Promise.resolve([]) };
    entry.skills = listServerSkills(connection.client, server, this.deps.tools.timeoutMs).then(
      (listing) => {
        entry.ttlMs = listing.ttlMs ?? 0;
        for (const why of listing.refused) this.deps.logger.warn({ server, why }, 'MCP server skill refused');
        return listing.skills;
      },
      (error: unknown) => {
        // Not kept: the next turn asks again.
        this.listings.delete(connection.client);
        this.deps.logger.warn({ server, err: error }, "MCP server's skills could not be listed");
        return [];
      },
    );
    this.listings.set(connection.client, entry);
    return entry.skills;
  }

  /** Fetches (once per manifest) and validates the skill; its id is the server's `<server>:<path>`. */
  private async load(skill: ServerSkill, scope: McpScope): Promise<ServerSkillLoad<S>> {
    const connection = await this.deps.tools.reach(skill.server, scope);
    if (!connection.ok) return { ok: false, why: `the skill ${skill.id} could not be fetched: ${connection.why}` };
    const made = await materializeServerSkill(connection.client, skill, this.deps.root, this.deps.tools.timeoutMs);
    if (!made.ok) {
      this.deps.logger.warn({ server: skill.server, skill: skill.id, why: made.why }, 'MCP server skill refused');
      return made;
    }
    const known = this.indexed.get(made.dir);
    if (known !== undefined) return { ok: true, skill: known };
    const read = await this.deps.indexFolder(made.dir);
    if ('why' in read) return { ok: false, why: `the skill ${skill.id} is not a valid skill: ${read.why}` };
    const body = stripHidden(read.skill.body);
    if (body.removed > 0) this.deps.logger.warn({ server: skill.server, skill: skill.id, hiddenRemoved: body.removed }, 'hidden characters (Unicode tags, zero-width, bidi controls) removed from an MCP server skill');
    const loaded: S = Object.freeze({ ...read.skill, id: skill.id, body: body.text });
    this.indexed.set(made.dir, loaded);
    return { ok: true, skill: loaded };
  }
}
