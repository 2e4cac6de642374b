// The discord.js client: the four intents it needs, the partials DMs need, the REST base from DISCORD_API_URL.
import { Client, GatewayIntentBits, Partials } from 'discord.js';

/**
 * The discord.js client skillbot runs. The intents are the four it needs (MessageContent is privileged: it must be
 * switched on in the Developer Portal). Partials.Channel lets DMs arrive for channels not in the cache. Nothing the
 * bot sends may ping anyone by default: every message carries `allowed_mentions: { parse: [] }`.
 * DISCORD_API_URL moves REST, and with it the gateway: discord.js asks `GET /gateway/bot` under `rest.api`.
 */
export function createDiscordClient(apiUrl: string | undefined): Client {
  return new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    allowedMentions: { parse: [], repliedUser: false },
    rest: apiUrl ? { api: apiUrl } : {},
  });
}
