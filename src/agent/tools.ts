import type { Tool, ToolBash20250124, ToolTextEditor20250728, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';

/** Tool definitions sent with every request: constant, so they stay inside the cached prefix. */
export const TOOL_DEFINITIONS: Tool[] = [
  {
    name: 'load_skill',
    description:
      'Load a skill from the catalog by id: returns its full instructions, where its files are (/skills/<id>) and ' +
      'its reference files. Call it before using a skill.',
    input_schema: {
      type: 'object',
      properties: { skill_id: { type: 'string', description: 'The id of a skill in <available_skills>.' } },
      required: ['skill_id'],
    },
  },
  {
    name: 'run_skill_script',
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
  },
];

/**
 * Anthropic's own client tools, in the newest versions API version 2026-10-21 accepts: Claude is trained on them
 * and uses them without instructions. skillbot runs them in the chat's workspace (bashTool.ts, editorTool.ts).
 */
export const BASH_TOOL: ToolBash20250124 = { type: 'bash_20250124', name: 'bash' };
export const EDITOR_TOOL: ToolTextEditor20250728 = { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 100_000 };

/**
 * Offered only when the catalog leaves skills out (public contract: input `{query}`).
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

/**
 * The four tool lists a world can have (with or without the shell, with or without search), each a constant, so
 * a world keeps one tool set across turns and the prompt cache keeps hitting.
 */
const TOOL_SETS = {
  plain: [...TOOL_DEFINITIONS, EDITOR_TOOL],
  search: [...TOOL_DEFINITIONS, FIND_SKILLS_TOOL, EDITOR_TOOL],
  shell: [...TOOL_DEFINITIONS, BASH_TOOL, EDITOR_TOOL],
  shellSearch: [...TOOL_DEFINITIONS, FIND_SKILLS_TOOL, BASH_TOOL, EDITOR_TOOL],
} satisfies Record<string, ToolUnion[]>;

/** The model's way back into a thread later (public contract: input `{when, note}`); offered where routines run. */
export const SCHEDULE_FOLLOWUP_TOOL: Tool = {
  name: 'schedule_followup',
  description:
    'Schedule one turn back into this same thread later (to check on something, or to remind people): when it comes, ' +
    'you get your note and can act. Use it only when waiting is part of the task. A thread may have only a few pending.',
  input_schema: {
    type: 'object',
    properties: {
      when: { type: 'string', description: 'When: "in 30 minutes", "in 2 hours", "every monday 10:00" (its next moment), or a 5-field cron expression.' },
      note: { type: 'string', description: 'What to do then, written for yourself.' },
    },
    required: ['when', 'note'],
  },
};

const WITH_FOLLOWUPS = new Map(Object.entries(TOOL_SETS).map(([name, tools]) => [name, [...tools, SCHEDULE_FOLLOWUP_TOOL]]));

export function toolsFor(options: { shell: boolean; search: boolean; followups?: boolean }): ToolUnion[] {
  const name = options.shell ? (options.search ? 'shellSearch' : 'shell') : options.search ? 'search' : 'plain';
  return (options.followups ? WITH_FOLLOWUPS.get(name) : undefined) ?? TOOL_SETS[name];
}

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

export const bashInput = z.object({ command: z.string().max(100_000).optional(), restart: z.boolean().optional() });

export const editorInput = z.discriminatedUnion('command', [
  z.object({ command: z.literal('view'), path: z.string().min(1).max(4096), view_range: z.tuple([z.number().int(), z.number().int()]).optional() }),
  z.object({ command: z.literal('create'), path: z.string().min(1).max(4096), file_text: z.string().max(5_000_000) }),
  z.object({ command: z.literal('str_replace'), path: z.string().min(1).max(4096), old_str: z.string().max(5_000_000), new_str: z.string().max(5_000_000).default('') }),
  z.object({
    command: z.literal('insert'),
    path: z.string().min(1).max(4096),
    insert_line: z.number().int().min(0),
    // The tool's documentation names it new_str; some versions say insert_text.
    new_str: z.string().max(5_000_000).optional(),
    insert_text: z.string().max(5_000_000).optional(),
  }),
]);
export type EditorInput = z.infer<typeof editorInput>;
