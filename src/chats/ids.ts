// World and chat ids as docs/contract.md fixes them: world `slack:T…:C…`, `discord:<guild>:<channel>`, `terminal:local`;
// chat `<worldId>/<threadId>`. Settings hang on the world, history and grants on the chat.

export type Platform = 'slack' | 'discord' | 'terminal';

export const TERMINAL_WORLD_ID = 'terminal:local';

/** An id that is not a world or chat id of the documented shape (a bug in an adapter, or a bad stored key). */
export class ChatIdError extends Error {
  override readonly name = 'ChatIdError';
}

// Slack ids are upper-case letters and digits (team T…/E…, channel C…, DM D…, private group G…).
const SLACK_ID = /^[A-Z][A-Z0-9]+$/;
// Discord ids are snowflakes; `@me` is Discord's own name for the direct-message "guild".
const SNOWFLAKE = /^\d{1,20}$/;
const DISCORD_GUILD = /^(\d{1,20}|@me)$/;
// A Slack thread ts (1712345678.123456), a Discord snowflake, a terminal session name.
const THREAD_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function check(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new ChatIdError(`${what} ${JSON.stringify(value)} is not valid`);
  return value;
}

export function slackWorldId(teamId: string, channelId: string): string {
  return `slack:${check(teamId, SLACK_ID, 'Slack team id')}:${check(channelId, SLACK_ID, 'Slack channel id')}`;
}

export function discordWorldId(guildId: string, channelId: string): string {
  return `discord:${check(guildId, DISCORD_GUILD, 'Discord guild id')}:${check(channelId, SNOWFLAKE, 'Discord channel id')}`;
}

export function chatId(worldId: string, threadId: string): string {
  parseWorldId(worldId);
  return `${worldId}/${check(threadId, THREAD_ID, 'thread id')}`;
}

export type ParsedWorldId =
  | { platform: 'slack'; worldId: string; teamId: string; channelId: string }
  | { platform: 'discord'; worldId: string; guildId: string; channelId: string }
  | { platform: 'terminal'; worldId: string };

export function parseWorldId(worldId: string): ParsedWorldId {
  if (worldId === TERMINAL_WORLD_ID) return { platform: 'terminal', worldId };
  const [platform, first, second, ...rest] = worldId.split(':');
  const shaped = first !== undefined && second !== undefined && rest.length === 0;
  if (platform === 'slack' && shaped && SLACK_ID.test(first) && SLACK_ID.test(second)) {
    return { platform, worldId, teamId: first, channelId: second };
  }
  if (platform === 'discord' && shaped && DISCORD_GUILD.test(first) && SNOWFLAKE.test(second)) {
    return { platform, worldId, guildId: first, channelId: second };
  }
  throw new ChatIdError(
    `world id ${JSON.stringify(worldId)} is not valid: expected slack:<team>:<channel>, discord:<guild>:<channel> or ${TERMINAL_WORLD_ID}`,
  );
}

export interface ParsedChatId {
  worldId: string;
  threadId: string;
  platform: Platform;
}

export function parseChatId(id: string): ParsedChatId {
  const slash = id.indexOf('/');
  if (slash === -1) throw new ChatIdError(`chat id ${JSON.stringify(id)} is not valid: expected <worldId>/<threadId>`);
  const worldId = id.slice(0, slash);
  const threadId = id.slice(slash + 1);
  const { platform } = parseWorldId(worldId);
  check(threadId, THREAD_ID, `thread id of chat ${JSON.stringify(id)}:`);
  return { worldId, threadId, platform };
}
