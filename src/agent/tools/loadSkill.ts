// load_skill: the skill activates in the chat exactly as a trigger or `/skill` would activate it (one approval for
// the code loading runs: run-on-load scripts, preflight commands, hooks), and the model gets the envelope.
import type { Tool as ToolDefinition } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { worldAllowsSkill } from '../../config/config.ts';
import { renderSkillFailure } from '../../skills/envelope.ts';
import { missingSkill } from '../../skills/loadSkill.ts';
import type { Skill } from '../../skills/types.ts';
import type { Tool, ToolResult } from '../../tools/contract.ts';
import { activateSkill } from '../skillActivation.ts';
import type { ToolContext, ToolDeps, TurnContext } from '../turnContext.ts';

export const LOAD_SKILL = 'load_skill';

const definition: ToolDefinition = {
  name: LOAD_SKILL,
  description:
    'Load a skill from the catalog by id: returns its full instructions, where its files are (/skills/<id>) and ' +
    'its reference files. Call it before using a skill.',
  input_schema: {
    type: 'object',
    properties: { skill_id: { type: 'string', description: 'The id of a skill in <available_skills>.' } },
    required: ['skill_id'],
  },
};

const loadSkillInput = z.object({ skill_id: z.string().min(1).max(200) });

/**
 * The skill the model may use here, or the envelope saying it is missing (naming only ids it may see). A skill
 * with `disable-model-invocation: true` is a person's to run (`/skill`): to the model it does not exist.
 */
function modelSkill(turn: TurnContext, skillId: string): Skill | ToolResult {
  const allowed = (id: string) => worldAllowsSkill(turn.settings, id) && turn.snapshot.get(id)?.disableModelInvocation !== true;
  const skill = turn.snapshot.get(skillId);
  if (skill && allowed(skill.id)) return skill;
  return { content: missingSkill(turn.snapshot, skillId, allowed), isError: true };
}

/**
 * The skill the model may use here, local or served by one of the world's MCP servers (`<server>:<path>`, fetched
 * and verified the first time it is used: a refused one comes back as the envelope saying why).
 */
export async function usableSkill(turn: TurnContext, skillId: string): Promise<Skill | ToolResult> {
  const local = modelSkill(turn, skillId);
  if ('id' in local || turn.serverSkills?.has(skillId) !== true || !worldAllowsSkill(turn.settings, skillId)) return local;
  turn.progress(`Fetching ${skillId}…`);
  const loaded = await turn.serverSkills.skill(skillId);
  if (loaded === undefined || (loaded.ok && loaded.skill.disableModelInvocation)) return local;
  if (!loaded.ok) return { content: renderSkillFailure(skillId, 'refused', 'server_skill_refused', `${loaded.why.charAt(0).toUpperCase()}${loaded.why.slice(1)}.`), isError: true };
  return loaded.skill;
}

/** What load_skill answers for an id; `/skill` with an id that is not here gets the very same envelope. */
export async function loadSkillForTurn(deps: ToolDeps, turn: TurnContext, skillId: string): Promise<ToolResult> {
  const found = await usableSkill(turn, skillId);
  if (!('id' in found)) return found;
  const activation = await activateSkill(deps, turn, { skill: found, via: 'model' });
  const notes = activation.notes.length > 0 ? `\n${activation.notes.join('\n')}` : '';
  return { content: `${activation.result.content}${notes}`, isError: activation.result.isError };
}

/** A skill id as the progress line shows it, when it is one a person can read. */
function named(input: unknown): string | undefined {
  const skillId = (input as { skill_id?: unknown } | undefined)?.skill_id;
  return typeof skillId === 'string' && skillId.length <= 100 ? skillId : undefined;
}

export const loadSkillTool: Tool<ToolContext, z.infer<typeof loadSkillInput>> = {
  name: LOAD_SKILL,
  definition,
  input: loadSkillInput,
  invalid: () => ({ content: renderSkillFailure('?', 'error', 'invalid_input', `${LOAD_SKILL} needs {"skill_id": "<id from the catalog>"}.`), isError: true }),
  progress: (input) => {
    const id = named(input);
    return id === undefined ? 'Loading a skill…' : `Loading ${id}…`;
  },
  run: (input, { deps, turn }) => loadSkillForTurn(deps, turn, input.skill_id),
};
