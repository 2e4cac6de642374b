import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';

/** Tool definitions sent with every request: constant, so they stay inside the cached prefix. */
export const TOOL_DEFINITIONS: Tool[] = [
  {
    name: 'load_skill',
    description:
      'Load a skill from the catalog by id: returns its full instructions, the output of the scripts it names ' +
      '(after a person approves running them) and its reference files. Call it before using a skill.',
    input_schema: {
      type: 'object',
      properties: { skill_id: { type: 'string', description: 'The id of a skill in <available_skills>.' } },
      required: ['skill_id'],
    },
  },
  {
    name: 'run_skill_script',
    description:
      'Run one script that a loaded skill names (a path under scripts/), with arguments. A person must approve ' +
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
            'Text files for the script (file name → content), written beside the files the person sent into the folder ' +
            'named by SKILLBOT_INPUT_DIR. The person sees them in the approval question.',
        },
      },
      required: ['skill_id', 'script'],
    },
  },
];

/**
 * Offered only when the catalog leaves skills out (public contract: input `{query}`). It is a second constant
 * list, so a world keeps one tool set across turns and the prompt cache keeps hitting.
 */
export const FIND_SKILLS_TOOL: Tool = {
  name: 'find_skills',
  description:
    'Search every skill available here, including those the catalog could not list: returns the best-matching ' +
    'skill ids with one-line descriptions, best first. Then call load_skill with the id that fits.',
  input_schema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'A few words saying what the skill should do.' } },
    required: ['query'],
  },
};
export const TOOLS_WITH_SEARCH: Tool[] = [...TOOL_DEFINITIONS, FIND_SKILLS_TOOL];

export const findSkillsInput = z.object({ query: z.string().trim().min(1).max(500), limit: z.number().int().min(1).max(20).optional() });

export const loadSkillInput = z.object({ skill_id: z.string().min(1).max(200) });
export const runSkillScriptInput = z.object({
  skill_id: z.string().min(1).max(200),
  script: z.string().min(1).max(500),
  args: z.array(z.string().max(10_000)).max(100).default([]),
  files: z
    .record(z.string().min(1).max(200), z.string().max(1_000_000))
    .refine((files) => Object.keys(files).length <= 20, 'at most 20 files')
    .optional(),
});

export type LoadSkillInput = z.infer<typeof loadSkillInput>;
export type RunSkillScriptInput = z.infer<typeof runSkillScriptInput>;
