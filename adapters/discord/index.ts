import type { PlatformLauncher } from '../../src/cli.ts';
import { type DiscordOptions, startDiscord } from './platform.ts';

export { DiscordStartError, type DiscordOptions } from './platform.ts';

/** The Discord platform for `skillbot start`, with options (tests shorten the shutdown grace). */
export function createDiscordLauncher(options: DiscordOptions = {}): PlatformLauncher {
  return {
    name: 'discord',
    enabled: (config) => Boolean(config.discord.token),
    start: (app) => startDiscord(app, options),
  };
}

/** Runs when DISCORD_TOKEN is set. */
export const discordLauncher: PlatformLauncher = createDiscordLauncher();
