// find_skills: when the catalog cannot list every skill this world allows, the model searches them all.
// The answer names ids and one-line descriptions only; the model then calls load_skill with the one it wants.
import { worldAllowsSkill } from '../config/config.ts';
import { escapeAttr, escapeText } from '../skills/escape.ts';
import type { ToolOutcome } from './loop.ts';
import { findSkillsInput } from './tools.ts';
import type { TurnContext } from './turnContext.ts';

const DEFAULT_RESULTS = 8;

/** Ranked search over the skills the model may use in this world (allowed, not disable-model-invocation). */
export function findSkillsForTurn(turn: TurnContext, input: unknown): ToolOutcome {
  const parsed = findSkillsInput.safeParse(input);
  if (!parsed.success) {
    return { content: 'find_skills needs {"query": "<a few words saying what the skill should do>"}.', isError: true };
  }
  const { query, limit = DEFAULT_RESULTS } = parsed.data;
  const hits = turn.snapshot.search(query, {
    limit,
    accept: (skill) => !skill.disableModelInvocation && worldAllowsSkill(turn.settings, skill.id),
  });
  const lines = hits.map((hit) => escapeText(`${hit.id}${hit.argumentHint ? ` ${hit.argumentHint}` : ''}: ${hit.description}`));
  const note = hits.length > 0 ? 'Best match first. Call load_skill with the id that fits.' : 'No skill matches; try other words, or answer without a skill.';
  return { content: [`<skill_search query="${escapeAttr(query)}" results="${hits.length}">`, ...lines, note, '</skill_search>'].join('\n') };
}
