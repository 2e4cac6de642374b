import { worldAllowsSkill } from '../config/config.ts';
import { activateSkill } from './skillActivation.ts';
import { renderScriptResult, renderSkillFailure } from '../skills/envelope.ts';
import { missingSkill } from '../skills/loadSkill.ts';
import type { Skill } from '../skills/types.ts';
import type { ToolOutcome } from './loop.ts';
import { findSkillsForTurn } from './findSkills.ts';
import { runBashTool, SHELL_ID } from './bashTool.ts';
import { runEditorTool } from './editorTool.ts';
import { runSkillCode } from './skillRuns.ts';
import { loadSkillInput, runSkillScriptInput } from './tools.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';

/**
 * The skill the model may use here, or the envelope saying it is missing (naming only ids it may see). A skill
 * with `disable-model-invocation: true` is a person's to run (`/skill`): to the model it does not exist.
 */
function findSkill(turn: TurnContext, skillId: string): Skill | ToolOutcome {
  const allowed = (id: string) => worldAllowsSkill(turn.settings, id) && turn.snapshot.get(id)?.disableModelInvocation !== true;
  const skill = turn.snapshot.get(skillId);
  if (skill && allowed(skill.id)) return skill;
  return { content: missingSkill(turn.snapshot, skillId, allowed), isError: true };
}

/**
 * load_skill: the skill activates in the chat exactly as a trigger or `/skill` would activate it (one approval
 * for the code loading runs: run-on-load scripts, preflight commands, hooks), and the model gets the envelope.
 */
export async function loadSkillForTurn(deps: ToolDeps, turn: TurnContext, skillId: string): Promise<ToolOutcome> {
  const found = findSkill(turn, skillId);
  if (!('id' in found)) return found;
  const activation = await activateSkill(deps, turn, { skill: found, via: 'model' });
  const notes = activation.notes.length > 0 ? `\n${activation.notes.join('\n')}` : '';
  return { content: `${activation.result.content}${notes}`, isError: activation.result.isError };
}

/** A script path as the model wrote it, in the registry's form (`scripts/x.sh`); undefined when it escapes. */
function normaliseScriptPath(script: string): string | undefined {
  const path = script.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (path.startsWith('/') || path.split('/').includes('..') || /^[a-zA-Z]:/.test(path)) return undefined;
  return path;
}

/** run_skill_script: one script the skill names, with argv arguments, after approval. */
async function runSkillScript(deps: ToolDeps, turn: TurnContext, input: unknown): Promise<ToolOutcome> {
  const parsed = runSkillScriptInput.safeParse(input);
  if (!parsed.success) {
    return { content: renderSkillFailure('?', 'error', 'invalid_input', `run_skill_script input is invalid: ${parsed.error.issues[0]?.message ?? 'bad input'}.`), isError: true };
  }
  const { skill_id: skillId, script, args, files } = parsed.data;
  const found = findSkill(turn, skillId);
  if (!('id' in found)) return found;
  const path = normaliseScriptPath(script);
  if (path === undefined) {
    return {
      content: renderSkillFailure(skillId, 'refused', 'refused_by_containment', `The script path "${script}" leaves the skill folder; only scripts inside it can run.`),
      isError: true,
    };
  }
  if (!found.scripts.includes(path)) {
    const named = found.scripts.length > 0 ? ` It names: ${found.scripts.join(', ')}.` : ' It names no scripts.';
    const missing = found.body.includes(path);
    return {
      content: renderSkillFailure(
        skillId,
        'refused',
        missing ? 'script_missing' : 'script_not_referenced',
        missing
          ? `The skill names "${path}" but no such file exists in its folder.${named}`
          : `"${path}" is not a script the skill's instructions (SKILL.md and the markdown files it links to) name, so it cannot run.${named}`,
      ),
      isError: true,
    };
  }
  const [output] = await runSkillCode(deps, turn, found, [{ script: path, args, ...(files ? { files } : {}) }]);
  if (!output) throw new Error('runSkillCode returned no output for one call');
  return { content: renderScriptResult(found.id, output), isError: output.status !== 'ok' };
}

/** Dispatches one tool call of the model. Unknown tools and bad input are results the model can read. */
export async function runSkillTool(deps: ToolDeps, turn: TurnContext, name: string, input: unknown): Promise<ToolOutcome> {
  if (name === 'load_skill') {
    const parsed = loadSkillInput.safeParse(input);
    if (!parsed.success) {
      return { content: renderSkillFailure('?', 'error', 'invalid_input', 'load_skill needs {"skill_id": "<id from the catalog>"}.'), isError: true };
    }
    return loadSkillForTurn(deps, turn, parsed.data.skill_id);
  }
  if (name === 'find_skills') return findSkillsForTurn(turn, input);
  if (name === 'schedule_followup' && deps.followups) return deps.followups.schedule(turn, input);
  // Every other tool may read or write the chat's files: the workspace is made ready before it runs.
  if (name === 'run_skill_script' || name === 'str_replace_based_edit_tool' || name === SHELL_ID) await turn.openWorkspace();
  if (name === 'run_skill_script') return runSkillScript(deps, turn, input);
  if (name === 'str_replace_based_edit_tool') return runEditorTool(deps, turn, input);
  // The shell is offered only where the world allows it; a call anyway (an old conversation) is refused.
  if (name === SHELL_ID && turn.settings.bash) return runBashTool(deps, turn, input);
  if (name === SHELL_ID) return { content: 'The shell is turned off in this channel; do the work with the skills\' scripts instead.', isError: true };
  return { content: `Unknown tool "${name}". Available tools: load_skill, run_skill_script, find_skills, str_replace_based_edit_tool${turn.settings.bash ? ', bash' : ''}.`, isError: true };
}
