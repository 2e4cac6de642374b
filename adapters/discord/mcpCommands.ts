// `@skillbot /mcp attach SERVER URI` and `@skillbot /mcp prompt SERVER NAME [args]` in a Discord chat: the core
// runs the line (once for every platform) and this place acts in the chat's channel: the file posted, the prompt's
// turn queued as the person's under its own delivery key, or a line.
import type { AcceptResult, CoreMcp, IncomingMessage } from '../../src/platform/index.ts';
import type { DiscordApi } from './discordApi.ts';
import type { Place } from './places.ts';

export function discordMcpCommand(mcp: CoreMcp, deps: { api: DiscordApi; accept: (message: IncomingMessage, keys: string[]) => Promise<AcceptResult> }) {
  return (place: Place, userId: string, text: string, keys: string[]): Promise<void> =>
    mcp.command(
      {
        worldId: place.worldId,
        userId,
        reply: async (line) => void (await deps.api.post(place.channelId, { content: line.slice(0, 2000) })),
        upload: async (file) => void (await deps.api.postFile(place.channelId, { content: file.title.slice(0, 2000) }, file)),
        startTurn: async (words) => {
          // Its own delivery key, from the command's: a replayed command queues the prompt's turn once.
          const queued = await deps.accept({ worldId: place.worldId, chatId: place.chatId, userId, text: words }, keys.map((key) => `mcp-prompt:${key}`));
          if (queued === 'refused') await deps.api.post(place.channelId, { content: 'The prompt could not be queued (the store did not answer); ask again.' });
        },
      },
      text,
    );
}
