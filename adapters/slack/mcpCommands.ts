// `@skillbot /mcp attach SERVER URI` and `@skillbot /mcp prompt SERVER NAME [args]` in a thread (Slack runs no
// slash command inside a thread): the delivery is claimed at once, then the core runs the line and this place does
// what it answers, in the same thread: the file shared, the prompt's turn queued as the person's, or a line.
import type { AcceptResult, Core, CoreMcp } from '../../src/platform/index.ts';
import type { SlackApi } from './slackApi.ts';
import type { BackgroundTasks } from './tasks.ts';
import type { ThreadMemory } from './threads.ts';

/** What of a turn's deps and message this needs (turns.ts's own types, named here so neither file imports the other). */
interface McpCommandDeps {
  core: Pick<Core, 'turns'>;
  api: SlackApi;
  threads: ThreadMemory;
  tasks: BackgroundTasks;
}
interface McpCommandTurn {
  channelId: string;
  threadTs: string;
  userId: string;
  text: string;
}

export async function mcpThreadCommand(deps: McpCommandDeps, mcp: CoreMcp, turn: McpCommandTurn, chat: { worldId: string; chatId: string }, deliveryKeys: string[]): Promise<AcceptResult> {
  const accepted = await deps.core.turns.accept(undefined, deliveryKeys);
  if (accepted !== 'queued') return accepted;
  const where = { channel: turn.channelId, threadTs: turn.threadTs };
  deps.tasks.run('thread mcp command', () =>
    mcp.command(
      {
        worldId: chat.worldId,
        userId: turn.userId,
        reply: async (text) => void (await deps.api.post({ ...where, text })),
        upload: async (file) => void (await deps.api.uploadFile({ ...where, name: file.name, bytes: file.bytes, title: file.title })),
        startTurn: async (text) => {
          await deps.threads.remember(chat.chatId, turn.userId);
          // Its own delivery key, from the command's: a redelivered command queues the prompt's turn once.
          const queued = await deps.core.turns.accept({ worldId: chat.worldId, chatId: chat.chatId, userId: turn.userId, text }, deliveryKeys.map((key) => `mcp-prompt:${key}`));
          if (queued === 'refused') await deps.api.post({ ...where, text: 'The prompt could not be queued (the store did not answer); ask again.' });
        },
      },
      turn.text,
    ),
  );
  return accepted;
}
