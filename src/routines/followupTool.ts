// The model's `schedule_followup` tool ({when, note}): one turn back into the same thread, later. Offered where
// routines run (the turn's tools carry the routine rules); a Tool of src/tools/contract.ts like the agent's own.
import type { Tool as ToolDefinition } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import type { Tool } from '../tools/contract.ts';
import { localTime } from './clock.ts';
import type { RoutineRules } from './routines.ts';
import { WHEN_EXAMPLES } from './when.ts';

export const SCHEDULE_FOLLOWUP = 'schedule_followup';

/** Public contract: input `{when, note}`. */
const definition: ToolDefinition = {
  name: SCHEDULE_FOLLOWUP,
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

const scheduleFollowupInput = z.object({ when: z.string().trim().min(1).max(200), note: z.string().trim().min(1).max(4_000) });

/** What of the routine rules the tool uses. */
export type FollowupRules = Pick<RoutineRules, 'followUp'>;

/** What a call needs of its turn: whose thread it is, and the rules (absent: follow-ups are not offered). */
export interface FollowupContext {
  turn: { worldId: string; chatId: string; requesterId: string };
  deps: { followups?: FollowupRules };
}

export const scheduleFollowupTool: Tool<FollowupContext, z.infer<typeof scheduleFollowupInput>> = {
  name: SCHEDULE_FOLLOWUP,
  definition,
  input: scheduleFollowupInput,
  invalid: (error) => ({ content: `${SCHEDULE_FOLLOWUP} needs {"when": "in 30 minutes", "note": "what to check"}: ${error.issues[0]?.message ?? 'bad input'}.`, isError: true }),
  progress: () => 'Scheduling a follow-up…',
  offered: ({ deps }) => deps.followups !== undefined,
  /** The result says when it will come back, or why not, for the model to read. */
  async run(input, { turn, deps }) {
    if (deps.followups === undefined) return { content: `${SCHEDULE_FOLLOWUP} is not available here.`, isError: true };
    const added = await deps.followups.followUp(turn, input.when, input.note);
    if (!added.ok) return { content: `${added.error} WHEN may be ${WHEN_EXAMPLES}.`, isError: true };
    const at = added.value.next ?? 0;
    return {
      content: `Follow-up ${added.value.routine.id} scheduled for ${localTime(at, 'UTC')} UTC: you will get one turn in this thread then, with your note. People see it in \`/routine list\` and may remove it.`,
      isError: false,
    };
  },
};
