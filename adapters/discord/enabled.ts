// Whether `skillbot start` runs Discord: a light check that imports no Discord SDK (the CLI stays fast).
import type { Config } from '../../src/platform/index.ts';

export function discordEnabled(config: Config): boolean {
  return Boolean(config.discord.token);
}
