// Slack's places as skillbot ids (built by src/chats/ids.ts): world = channel or DM, chat = thread.
import { chatId, parseChatId, parseWorldId, slackWorldId } from '../../src/platform/index.ts';

export { slackWorldId };

/** `slack:T…:C…/<thread_ts>`; a message that starts a thread is its own thread root. */
export function slackChatId(worldId: string, threadTs: string): string {
  return chatId(worldId, threadTs);
}

export interface SlackThread {
  teamId: string;
  channelId: string;
  threadTs: string;
}

/** The channel and thread of a Slack chat id; undefined for other platforms' ids or malformed ones. */
export function slackThreadOf(id: string): SlackThread | undefined {
  try {
    const { worldId, threadId } = parseChatId(id);
    const world = parseWorldId(worldId);
    return world.platform === 'slack' ? { teamId: world.teamId, channelId: world.channelId, threadTs: threadId } : undefined;
  } catch {
    return undefined;
  }
}

/** An approval message's reference (stored on the record so any instance can update it). */
export function messageRef(channelId: string, ts: string): string {
  return `${channelId}:${ts}`;
}

export function parseMessageRef(ref: string | undefined): { channelId: string; ts: string } | undefined {
  const match = ref === undefined ? null : /^([^:]+):(\d+\.\d+)$/.exec(ref);
  return match?.[1] && match[2] ? { channelId: match[1], ts: match[2] } : undefined;
}
