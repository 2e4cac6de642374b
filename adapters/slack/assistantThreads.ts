// Slack's assistant threads (the Agents & AI Apps entry point, the split view): when a person opens one, suggest
// prompts built from the skills they may run there, each with its argument hint. The thread itself is a DM
// thread like any other: its messages reach the bot as `message.im` and start or continue a chat.
import type { App as BoltApp } from '@slack/bolt';
import { z } from 'zod';
import type { App } from '../../src/app.ts';
import type { Logger } from '../../src/ops/log.ts';
import type { Skill } from '../../src/skills/types.ts';
import { slackWorldId } from './ids.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;

const threadEventSchema = z.object({
  assistant_thread: z.object({ user_id: z.string().min(1), channel_id: z.string().min(1), thread_ts: z.string().min(1) }),
});

export interface AssistantThreadDeps {
  app: App;
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

export function registerAssistantThreads(bolt: BoltApp, deps: AssistantThreadDeps): void {
  const suggest = async (event: unknown, teamId: string | undefined): Promise<void> => {
    const parsed = threadEventSchema.safeParse(event);
    if (!parsed.success || !teamId) return;
    const { channel_id: channel, thread_ts: threadTs } = parsed.data.assistant_thread;
    const prompts = suggestedPrompts(deps.app.engine.invocableSkills(slackWorldId(teamId, channel)));
    if (prompts.length === 0) return;
    await deps.api
      .setSuggestedPrompts({ channel, threadTs, title: 'Try a skill (or just ask):', prompts })
      .catch((error: unknown) => deps.logger.warn({ err: slackErrorCode(error) }, 'suggesting prompts failed'));
  };
  bolt.event('assistant_thread_started', async ({ event, context }) => suggest(event, context.teamId));
  // The person switched the channel they are looking at: the chat's world (their DM) is unchanged, nothing to redo.
  bolt.event('assistant_thread_context_changed', async () => undefined);
}
