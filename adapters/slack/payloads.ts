// The shapes of what Slack sends, validated where they enter (events, slash commands, button clicks).
import { z } from 'zod';
import { slackFileSchema } from './files.ts';

/** `message` and `app_mention` events, as far as the adapter reads them. */
export const messageEventSchema = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(''),
  ts: z.string().regex(/^\d+\.\d+$/),
  thread_ts: z.string().regex(/^\d+\.\d+$/).optional(),
  team: z.string().optional(),
  files: z.array(slackFileSchema).optional(),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

/** The Events API envelope around an event. */
export const eventEnvelopeSchema = z.object({
  event_id: z.string().optional(),
  team_id: z.string().optional(),
});

export const slashCommandSchema = z.object({
  command: z.string(),
  text: z.string().default(''),
  team_id: z.string().min(1),
  channel_id: z.string().min(1),
  user_id: z.string().min(1),
  trigger_id: z.string().optional(),
  response_url: z.string().optional(),
});
export type SlashCommand = z.infer<typeof slashCommandSchema>;

/** A click on one of the approval buttons (a `block_actions` payload). */
export const approvalClickSchema = z.object({
  type: z.literal('block_actions'),
  trigger_id: z.string().optional(),
  user: z.object({ id: z.string().min(1), team_id: z.string().optional() }),
  team: z.object({ id: z.string().min(1) }).nullable().optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z
    .object({ channel_id: z.string().optional(), message_ts: z.string().optional(), thread_ts: z.string().optional() })
    .optional(),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional(), action_ts: z.string().optional() })).min(1),
});

/** Slack escapes `&`, `<`, `>` in message text; the model gets what the person typed. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
