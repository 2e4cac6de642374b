// The Discord platform for `skillbot start` (discord.js 14 over the gateway).
import type { PlatformLauncher } from '../../src/platform/index.ts';
import { discordEnabled } from './enabled.ts';
import { type DiscordOptions, startDiscord } from './platform.ts';

export { DiscordStartError, type DiscordOptions } from './platform.ts';

/** The Discord platform for `skillbot start`, with options (tests shorten the shutdown grace). */
export function createDiscordLauncher(options: DiscordOptions = {}): PlatformLauncher {
  return {
    name: 'discord',
    enabled: discordEnabled,
    start: (app) => startDiscord(app, options),
  };
}

/** Runs when DISCORD_TOKEN is set. */
export const discordLauncher: PlatformLauncher = createDiscordLauncher();
