// The skills of the world's MCP servers in a turn (issue 38): listed once as the turn opens, beside the registry's
// snapshot; in the catalog only where the world's `skills` list allows their `<server>:<path>` id (`*` does) and
// they are not `disable-model-invocation`; loaded, mounted and viewed like any skill once fetched and verified.
import { worldAllowsSkill, type WorldSettings } from '../config/config.ts';
import type { McpScope } from '../mcp/mcpTools.ts';
import type { ServerSkillCatalog, TurnServerSkills } from '../mcp/serverSkillCatalog.ts';
import type { Skill, SkillSnapshot } from '../skills/types.ts';
import type { TurnContext } from './turnContext.ts';

/** The turn's server skills; undefined when the bot has no MCP servers or the world may use none. */
export async function openServerSkills(
  catalog: ServerSkillCatalog<Skill> | undefined,
  scope: Omit<McpScope, 'mcp' | 'network' | 'egressAllow' | 'credentials'>,
  settings: WorldSettings,
  snapshot: SkillSnapshot,
): Promise<TurnServerSkills<Skill> | undefined> {
  if (catalog === undefined || settings.mcp.length === 0) return undefined;
  const { mcp, network, egressAllow, credentials } = settings;
  // A local skill wins only where the world may use it: a hidden one leaves the name to the server's.
  const localWins = (name: string) => snapshot.get(name) !== undefined && worldAllowsSkill(settings, name);
  return catalog.forTurn({ ...scope, mcp, network, egressAllow, credentials }, localWins);
}

/** The catalog lines (id, description) of the server skills the model may use in this world. */
export function serverCatalogLines(skills: TurnServerSkills<Skill> | undefined, settings: WorldSettings): Array<{ id: string; description: string }> {
  return (skills?.listed ?? [])
    .filter((skill) => worldAllowsSkill(settings, skill.id) && skill.entry.frontmatter['disable-model-invocation'] !== true)
    .map((skill) => ({ id: skill.id, description: skill.description }));
}

/**
 * The skill of `id` as the turn knows it: the snapshot's, else a listed server skill (fetched and verified the first
 * time; a kept folder after). Undefined when neither has it or the server's could not be had.
 */
export async function skillOfTurn(turn: Pick<TurnContext, 'snapshot' | 'serverSkills'>, id: string): Promise<Skill | undefined> {
  const local = turn.snapshot.get(id);
  if (local !== undefined) return local;
  const loaded = await turn.serverSkills?.skill(id);
  return loaded?.ok === true ? loaded.skill : undefined;
}

/**
 * find_skills over the server skills the model may use here, for when the catalog could not list them all: those
 * whose id or description holds the most of the query's words first (a listing is small: no index is kept).
 */
export function searchServerSkills(turn: Pick<TurnContext, 'serverSkills' | 'settings'>, query: string, limit: number): Array<{ id: string; description: string }> {
  const words = [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 1))];
  return serverCatalogLines(turn.serverSkills, turn.settings)
    .map((line) => ({ line, score: words.filter((word) => `${line.id} ${line.description}`.toLowerCase().includes(word)).length }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || (a.line.id < b.line.id ? -1 : 1))
    .slice(0, limit)
    .map((hit) => ({ id: hit.line.id, description: hit.line.description.replace(/\s+/g, ' ').trim() }));
}

/** A server skill a person asked for by name (`/skill <server>:<path>`), or why it is not run. */
export type PersonServerSkill = { ok: true; skill: Skill } | { ok: false; status: 'not_found' | 'refused'; code: string; why: string };

/** Whether `id` has the shape of a server skill's id (`<server>:<path>`): local ids never hold a colon. */
export const isServerSkillId = (id: string): boolean => /^[^:\s]+:[^:\s]+$/.test(id);

/**
 * `/skill <server>:<path>` typed by a person: the server skill the world may use, as a local one is run (a
 * `disable-model-invocation` skill is a person's to run, so it is not refused here); `user-invocable: false` is
 * refused before anything is fetched, as a local one is; an id no server of this world lists is named as not offered.
 */
export async function personServerSkill(turn: Pick<TurnContext, 'serverSkills' | 'settings' | 'progress'>, id: string): Promise<PersonServerSkill> {
  const listed = turn.serverSkills?.listed.find((skill) => skill.id === id);
  if (turn.serverSkills === undefined || listed === undefined || !worldAllowsSkill(turn.settings, id)) {
    return { ok: false, status: 'not_found', code: 'server_skill_not_offered', why: `The skill "${id}" is not offered here: no MCP server this chat may use lists it.` };
  }
  const notInvocable = { ok: false, status: 'refused', code: 'not_user_invocable', why: `The skill "${id}" is not run by people (user-invocable: false); only the model may load it when it fits.` } as const;
  if (listed.entry.frontmatter['user-invocable'] === false) return notInvocable;
  turn.progress(`Fetching ${id}…`);
  const loaded = await turn.serverSkills.skill(id);
  if (loaded === undefined) return { ok: false, status: 'not_found', code: 'server_skill_not_offered', why: `The skill "${id}" is not offered here.` };
  if (!loaded.ok) return { ok: false, status: 'refused', code: 'server_skill_refused', why: `${loaded.why.charAt(0).toUpperCase()}${loaded.why.slice(1)}.` };
  return loaded.skill.userInvocable ? { ok: true, skill: loaded.skill } : notInvocable;
}
