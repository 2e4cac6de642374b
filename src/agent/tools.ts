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
      },
      required: ['skill_id', 'script'],
    },
  },
];

export const loadSkillInput = z.object({ skill_id: z.string().min(1).max(200) });
export const runSkillScriptInput = z.object({
  skill_id: z.string().min(1).max(200),
  script: z.string().min(1).max(500),
  args: z.array(z.string().max(10_000)).max(100).default([]),
});

export type LoadSkillInput = z.infer<typeof loadSkillInput>;
export type RunSkillScriptInput = z.infer<typeof runSkillScriptInput>;
