// `/routine …` and `/hook …`: answered privately (ephemeral), by the core's routines (src/routines).
import type { App as BoltApp } from '@slack/bolt';
import type { Core } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { slackWorldId } from './ids.ts';
import { slashCommandSchema, unescapeSlack } from './payloads.ts';
import { safeText } from './slackText.ts';
import type { BackgroundTasks } from './tasks.ts';

export interface RoutineCommandDeps {
  core: Core;
  tasks: BackgroundTasks;
  logger: Logger;
}

const ephemeral = (text: string) => ({ response_type: 'ephemeral' as const, text });

/** The core's answer, escaped (it quotes what people typed), with the owners' mentions it names kept. */
export function answerText(text: string): string {
  return safeText(text).replace(/&lt;@([UWB][A-Z0-9]+)&gt;/g, '<@$1>');
}

export function registerRoutineCommands(bolt: BoltApp, deps: RoutineCommandDeps): void {
  for (const name of ['/routine', '/hook'] as const) {
    bolt.command(name, async ({ command, ack, respond }) => {
      const parsed = slashCommandSchema.safeParse(command);
      if (!parsed.success) return ack();
      // Acknowledged at once: adding a hook posts its root message, which may take longer than Slack's 3 s.
      await ack();
      const place = { worldId: slackWorldId(parsed.data.team_id, parsed.data.channel_id), userId: parsed.data.user_id };
      const text = unescapeSlack(parsed.data.text);
      deps.tasks.run(name, async () => {
        let answer: string;
        try {
          answer = name === '/routine' ? await deps.core.routines.routineCommand(place, text) : await deps.core.routines.hookCommand(place, text);
        } catch (error) {
          deps.logger.error({ err: error, command: name }, `${name} failed`);
          answer = 'That did not work: the bot could not finish it (see its log).';
        }
        await respond(ephemeral(answerText(answer)));
      });
    });
  }
}
