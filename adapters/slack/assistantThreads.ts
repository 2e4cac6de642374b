// Slack's agent entry point (Agents & AI Apps, the split view): when a person opens the bot's messages, suggest
// prompts built from the skills they may run there, each with its argument hint. Apps on `agent_view` (the manifest
// now) get `app_home_opened` with `tab: messages` and suggest for the DM itself; apps still on `assistant_view` get
// `assistant_thread_started` and suggest for that thread. Either way the conversation is a DM like any other: its
// messages reach the bot as `message.im` and start or continue a chat.
import type { App as BoltApp } from '@slack/bolt';
import { z } from 'zod';
import type { Core, Skill } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { slackWorldId } from './ids.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;

const threadEventSchema = z.object({
  assistant_thread: z.object({ user_id: z.string().min(1), channel_id: z.string().min(1), thread_ts: z.string().min(1) }),
});

export interface AssistantThreadDeps {
  core: Core;
  api: SlackApi;
  logger: Logger;
}

/** One prompt per skill: the title shows the id and its argument hint, clicking sends `/skill ID`. */
export function suggestedPrompts(skills: readonly Skill[]): Array<{ title: string; message: string }> {
  // Skills that take arguments say the most about what the bot does; then the rest, by id.
  const ordered = [...skills.filter((skill) => skill.argumentHint), ...skills.filter((skill) => !skill.argumentHint)];
  return ordered.slice(0, MAX_PROMPTS).map((skill) => {
    const title = skill.argumentHint ? `${skill.id} ${skill.argumentHint}` : skill.id;
    return { title: title.length > 75 ? `${title.slice(0, 74)}…` : title, message: `/skill ${skill.id}` };
  });
}

const messagesOpenedSchema = z.object({ user: z.string().min(1), channel: z.string().min(1), tab: z.literal('messages') });

export function registerAssistantThreads(bolt: BoltApp, deps: AssistantThreadDeps): void {
  const suggest = async (teamId: string, channel: string, threadTs?: string): Promise<void> => {
    const prompts = suggestedPrompts(deps.core.skills.forWorld(slackWorldId(teamId, channel)));
    if (prompts.length === 0) return;
    await deps.api
      .setSuggestedPrompts({ channel, ...(threadTs === undefined ? {} : { threadTs }), title: 'Try a skill (or just ask):', prompts })
      .catch((error: unknown) => deps.logger.warn({ err: slackErrorCode(error) }, 'suggesting prompts failed'));
  };
  // agent_view: the person opened the bot's messages (the Home tab is appHome.ts's).
  bolt.event('app_home_opened', async ({ event, context }) => {
    const parsed = messagesOpenedSchema.safeParse(event);
    if (parsed.success && context.teamId) await suggest(context.teamId, parsed.data.channel);
  });
  // assistant_view, for apps that have not moved: a new assistant thread.
  bolt.event('assistant_thread_started', async ({ event, context }) => {
    const parsed = threadEventSchema.safeParse(event);
    if (parsed.success && context.teamId) await suggest(context.teamId, parsed.data.assistant_thread.channel_id, parsed.data.assistant_thread.thread_ts);
  });
  // The person looks at another channel (either view). The chat is their DM, whose skills are the DM's world's: offering
  // the viewed channel's would carry a channel's installs into a DM, so there is nothing to redo.
  bolt.event('app_context_changed', async () => undefined);
  bolt.event('assistant_thread_context_changed', async () => undefined);
}
