// Hands a Slack message to the engine as one turn, with a ThreadReply as its sink.
import type { App } from '../../src/app.ts';
import type { Logger } from '../../src/log.ts';
import { slackChatId, slackWorldId } from './ids.ts';
import type { SlackApi } from './slackApi.ts';
import type { BackgroundTasks } from './tasks.ts';
import { ThreadReply } from './threadReply.ts';
import type { ThreadMemory } from './threads.ts';

export interface SlackTurn {
  teamId: string;
  channelId: string;
  /** The thread the chat lives in (a new root's own ts for a new chat). */
  threadTs: string;
  userId: string;
  text: string;
  skill?: { id: string; args: string };
}

export interface TurnDeps {
  app: App;
  api: SlackApi;
  threads: ThreadMemory;
  tasks: BackgroundTasks;
  logger: Logger;
}

/**
 * Remembers the thread, shows the placeholder and queues the turn. Resolves once the turn is queued (not when
 * it ends); rejects only if the turn could not be queued, so the caller can let a redelivery try again.
 */
export async function startTurn(deps: TurnDeps, turn: SlackTurn): Promise<void> {
  const worldId = slackWorldId(turn.teamId, turn.channelId);
  const chatId = slackChatId(worldId, turn.threadTs);
  await deps.threads.remember(chatId, turn.userId);
  const log = deps.logger.child({ chatId });
  const sink = new ThreadReply(deps.api, turn.channelId, turn.threadTs, log);
  sink.open();
  const queued = deps.app.engine.handleMessage(
    { worldId, chatId, userId: turn.userId, text: turn.text, ...(turn.skill ? { skill: turn.skill } : {}) },
    sink,
  );
  deps.tasks.run('turn', () => queued);
}
