// Hands a Slack message to the core's durable queue; any instance then answers it in its thread.
import type { App } from '../../src/app.ts';
import type { Logger } from '../../src/log.ts';
import type { PlatformPort } from '../../src/platform.ts';
import type { Store } from '../../src/store/types.ts';
import { slackChatId, slackThreadOf, slackWorldId } from './ids.ts';
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
 * Remembers the thread and queues the turn durably. Resolves once the message is in the store (so the delivery
 * may be marked done); rejects only if it could not be queued, so the caller can let a redelivery try again.
 */
export async function startTurn(deps: TurnDeps, turn: SlackTurn): Promise<void> {
  const worldId = slackWorldId(turn.teamId, turn.channelId);
  const chatId = slackChatId(worldId, turn.threadTs);
  await deps.threads.remember(chatId, turn.userId);
  await deps.app.dispatcher.submit({ worldId, chatId, userId: turn.userId, text: turn.text, ...(turn.skill ? { skill: turn.skill } : {}) });
}

/** A placeholder is worth reusing for as long as a message may be re-run. */
const PLACEHOLDER_KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * How the core answers a Slack chat, from its id alone: a placeholder in the thread, then the answer. The
 * placeholder's ts is kept per turn, so a re-run after a crash edits the same message instead of leaving a
 * stale "Working on it…" behind.
 */
export function slackPort(api: SlackApi, store: Store, logger: Logger): PlatformPort {
  return {
    sinkFor(message, turnId) {
      const thread = slackThreadOf(message.chatId);
      if (!thread) throw new Error(`not a Slack chat id: ${message.chatId}`);
      const sink = new ThreadReply(api, thread.channelId, thread.threadTs, logger.child({ chatId: message.chatId, turnId }));
      const key = `slack-placeholder:${turnId}`;
      sink.open({
        get: () => store.get<string>('chats', key),
        set: (ts) => store.set('chats', key, ts, PLACEHOLDER_KEEP_MS),
      });
      return sink;
    },
  };
}
