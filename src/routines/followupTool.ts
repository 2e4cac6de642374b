// The model's `schedule_followup` tool ({when, note}): one turn back into the same thread, later.
import { z } from 'zod';
import { localTime } from './clock.ts';
import type { RoutineRules } from './routines.ts';
import { WHEN_EXAMPLES } from './when.ts';

export const scheduleFollowupInput = z.object({ when: z.string().trim().min(1).max(200), note: z.string().trim().min(1).max(4_000) });

export interface FollowupTurn {
  worldId: string;
  chatId: string;
  requesterId: string;
}

/** Runs one call of the tool: the result says when it will come back, or why not, for the model to read. */
export async function scheduleFollowup(rules: RoutineRules, turn: FollowupTurn, input: unknown): Promise<{ content: string; isError: boolean }> {
  const parsed = scheduleFollowupInput.safeParse(input);
  if (!parsed.success) return { content: `schedule_followup needs {"when": "in 30 minutes", "note": "what to check"}: ${parsed.error.issues[0]?.message ?? 'bad input'}.`, isError: true };
  const added = await rules.followUp(turn, parsed.data.when, parsed.data.note);
  if (!added.ok) return { content: `${added.error} WHEN may be ${WHEN_EXAMPLES}.`, isError: true };
  const at = added.value.next ?? 0;
  return {
    content: `Follow-up ${added.value.routine.id} scheduled for ${localTime(at, 'UTC')} UTC: you will get one turn in this thread then, with your note. People see it in \`/routine list\` and may remove it.`,
    isError: false,
  };
}
