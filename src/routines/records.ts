// What the store keeps of routines, follow-ups and hooks: one book (read once per scheduler tick), validated on read.
import { z } from 'zod';

const scheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cron'), cron: z.string(), timezone: z.string() }),
  z.object({ kind: z.literal('once'), at: z.number() }),
]);

/** A routine (`/routine add`) or a follow-up (the model's `schedule_followup`, bound to its chat). */
export const routineSchema = z.object({
  id: z.string(),
  kind: z.enum(['routine', 'followup']),
  worldId: z.string(),
  /** Who made it: every run's requester (their access, limits, sign-ins and grants apply). */
  owner: z.string(),
  /** WHEN as it was written. */
  when: z.string(),
  schedule: scheduleSchema,
  instructions: z.string(),
  paused: z.boolean(),
  createdAt: z.number(),
  /** A follow-up's thread (its runs go there); a routine's runs each get a new thread. */
  chatId: z.string().optional(),
});
export type Routine = z.infer<typeof routineSchema>;

/** A webhook (`/hook add`): deliveries start turns in the thread under the root message that names it. */
export const hookSchema = z.object({
  id: z.string(),
  worldId: z.string(),
  chatId: z.string(),
  owner: z.string(),
  provider: z.enum(['github', 'generic']),
  /** Event types that start a turn; empty: every one. */
  events: z.array(z.string()),
  /** What to do with a delivery (optional: without it the model is asked to summarise and triage). */
  instructions: z.string(),
  createdAt: z.number(),
});
export type Hook = z.infer<typeof hookSchema>;

/** Every routine, follow-up and hook, in one record: `status` is its version (compare-and-set on change). */
export const bookSchema = z.object({ status: z.string(), routines: z.array(routineSchema), hooks: z.array(hookSchema) });
export type Book = z.infer<typeof bookSchema>;

/** The result of a routine's latest run (`last:<id>`), for `list` and App Home. */
export const lastRunSchema = z.object({ tick: z.number(), at: z.number(), chatId: z.string().optional(), result: z.string() });
export type LastRun = z.infer<typeof lastRunSchema>;
