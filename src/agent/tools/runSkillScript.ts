// run_skill_script: one script a loaded skill names, with argv arguments, in the chat's workspace, after a person
// approved exactly it (the one guarded path: skillRuns.ts authorizes, then src/exec runs it in the sandbox).
import type { Tool as ToolDefinition } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { renderScriptResult, renderSkillFailure } from '../../skills/envelope.ts';
import type { Skill } from '../../skills/types.ts';
import type { Tool, ToolResult } from '../../tools/contract.ts';
import { runSkillCode } from '../skillRuns.ts';
import type { ToolContext, ToolDeps, TurnContext } from '../turnContext.ts';
import { usableSkill } from './loadSkill.ts';

export const RUN_SKILL_SCRIPT = 'run_skill_script';

const definition: ToolDefinition = {
  name: RUN_SKILL_SCRIPT,
  description:
    'Run one script that a loaded skill names (a path under scripts/), with arguments, in the chat\'s workspace ' +
    '(/workspace, its working directory: relative paths in arguments name workspace files). A person must approve ' +
    'it first. Arguments are passed as separate argv entries, never through a shell.',
  input_schema: {
    type: 'object',
    properties: {
      skill_id: { type: 'string' },
      script: { type: 'string', description: 'Path relative to the skill folder, e.g. scripts/report.sh' },
      args: { type: 'array', items: { type: 'string' }, description: 'Arguments, one per entry.' },
      files: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          'Text files for the script (file name → content), written into /workspace before it runs (the folder named ' +
          'by SKILLBOT_INPUT_DIR). The person sees them, whole, in the approval question.',
      },
    },
    required: ['skill_id', 'script'],
  },
};

const runSkillScriptInput = z.object({
  skill_id: z.string().min(1).max(200),
  script: z.string().min(1).max(500),
  args: z.array(z.string().max(10_000)).max(100).default([]),
  files: z
    .record(z.string().min(1).max(200), z.string().max(1_000_000))
    .refine((files) => Object.keys(files).length <= 20, 'at most 20 files')
    .optional(),
});
type RunSkillScriptInput = z.infer<typeof runSkillScriptInput>;

/** A script path as the model wrote it, in the registry's form (`scripts/x.sh`); undefined when it escapes. */
function normaliseScriptPath(script: string): string | undefined {
  const path = script.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (path.startsWith('/') || path.split('/').includes('..') || /^[a-zA-Z]:/.test(path)) return undefined;
  return path;
}

/** The script's path in the skill, or why it may not run (it leaves the folder, or the instructions do not name it). */
function checkedPath(skill: Skill, script: string): string | ToolResult {
  const path = normaliseScriptPath(script);
  if (path === undefined) {
    return { content: renderSkillFailure(skill.id, 'refused', 'refused_by_containment', `The script path "${script}" leaves the skill folder; only scripts inside it can run.`), isError: true };
  }
  if (skill.scripts.includes(path)) return path;
  const named = skill.scripts.length > 0 ? ` It names: ${skill.scripts.join(', ')}.` : ' It names no scripts.';
  const missing = skill.body.includes(path);
  return {
    content: renderSkillFailure(
      skill.id,
      'refused',
      missing ? 'script_missing' : 'script_not_referenced',
      missing
        ? `The skill names "${path}" but no such file exists in its folder.${named}`
        : `"${path}" is not a script the skill's instructions (SKILL.md and the markdown files it links to) name, so it cannot run.${named}`,
    ),
    isError: true,
  };
}

async function runSkillScript(deps: ToolDeps, turn: TurnContext, input: RunSkillScriptInput): Promise<ToolResult> {
  const { skill_id: skillId, script, args, files } = input;
  const found = await usableSkill(turn, skillId);
  if (!('id' in found)) return found;
  const path = checkedPath(found, script);
  if (typeof path !== 'string') return path;
  await turn.openWorkspace();
  const [output] = await runSkillCode(deps, turn, found, [{ script: path, args, ...(files ? { files } : {}) }]);
  if (!output) throw new Error('runSkillCode returned no output for one call');
  return { content: renderScriptResult(found.id, output), isError: output.status !== 'ok' };
}

export const runSkillScriptTool: Tool<ToolContext, RunSkillScriptInput> = {
  name: RUN_SKILL_SCRIPT,
  definition,
  input: runSkillScriptInput,
  invalid: (error) => ({
    content: renderSkillFailure('?', 'error', 'invalid_input', `${RUN_SKILL_SCRIPT} input is invalid: ${error.issues[0]?.message ?? 'bad input'}.`),
    isError: true,
  }),
  progress: () => 'Running a skill script…',
  run: (input, { deps, turn }) => runSkillScript(deps, turn, input),
};
