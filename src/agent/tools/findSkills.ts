// find_skills: when the catalog cannot list every skill this world allows, the model searches them all.
// The answer names ids and one-line descriptions only; the model then calls load_skill with the one it wants.
import type { Tool as ToolDefinition } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { worldAllowsSkill } from '../../config/config.ts';
import { escapeAttr, escapeText } from '../../skills/escape.ts';
import type { Tool, ToolResult } from '../../tools/contract.ts';
import type { ToolContext, TurnContext } from '../turnContext.ts';
import { searchServerSkills } from '../turnServerSkills.ts';
import { LOAD_SKILL } from './loadSkill.ts';

export const FIND_SKILLS = 'find_skills';

const DEFAULT_RESULTS = 8;

/** Public contract: input `{query}`. */
const definition: ToolDefinition = {
  name: FIND_SKILLS,
  description:
    'Search every skill available here, including those the catalog could not list: returns the best-matching ' +
    `skill ids with one-line descriptions, best first. Then call ${LOAD_SKILL} with the id that fits.`,
  input_schema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'A few words saying what the skill should do.' } },
    required: ['query'],
  },
};

const findSkillsInput = z.object({ query: z.string().trim().min(1).max(500), limit: z.number().int().min(1).max(20).optional() });

/** Ranked search over the skills the model may use in this world (allowed, not disable-model-invocation). */
function findSkillsForTurn(turn: TurnContext, input: z.infer<typeof findSkillsInput>): ToolResult {
  const { query, limit = DEFAULT_RESULTS } = input;
  const hits = turn.snapshot.search(query, {
    limit,
    accept: (skill) => !skill.disableModelInvocation && worldAllowsSkill(turn.settings, skill.id),
  });
  // The world's MCP servers' skills after the local ones (a local skill of the same name already won).
  const served = searchServerSkills(turn, query, Math.max(0, limit - hits.length));
  const lines = [...hits, ...served].map((hit) => escapeText(`${hit.id}${'argumentHint' in hit && hit.argumentHint ? ` ${hit.argumentHint}` : ''}: ${hit.description}`));
  const note = lines.length > 0 ? `Best match first. Call ${LOAD_SKILL} with the id that fits.` : 'No skill matches; try other words, or answer without a skill.';
  return { content: [`<skill_search query="${escapeAttr(query)}" results="${lines.length}">`, ...lines, note, '</skill_search>'].join('\n') };
}

/** Offered only when the catalog leaves skills out; a call anyway still searches. */
export const findSkillsTool: Tool<ToolContext, z.infer<typeof findSkillsInput>> = {
  name: FIND_SKILLS,
  definition,
  input: findSkillsInput,
  invalid: () => ({ content: `${FIND_SKILLS} needs {"query": "<a few words saying what the skill should do>"}.`, isError: true }),
  progress: () => 'Searching the skills…',
  offered: ({ catalogComplete }) => !catalogComplete,
  run: (input, { turn }) => Promise.resolve(findSkillsForTurn(turn, input)),
};
