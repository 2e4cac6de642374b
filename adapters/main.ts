import { processOutput } from '../src/commandOutput.ts';
import { type PlatformLauncher, runCli } from '../src/cli.ts';
import { discordEnabled } from './discord/enabled.ts';
import { slackEnabled } from './slack/enabled.ts';

// A platform's SDK is imported only when that platform starts: `skills list` never loads Bolt or discord.js.
const platforms: PlatformLauncher[] = [
  { name: 'slack', enabled: slackEnabled, start: async (app, http) => (await import('./slack/index.ts')).slackLauncher.start(app, http) },
  { name: 'discord', enabled: discordEnabled, start: async (app, http) => (await import('./discord/index.ts')).discordLauncher.start(app, http) },
];

/** The composition root: the core's CLI with the platforms the adapters provide. */
export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
    platforms,
    terminal: async (app, options) => {
      const { runTerminalChat } = await import('./terminal/chat.ts');
      return runTerminalChat(app, { input: process.stdin, output: process.stdout, ...options });
    },
    output: processOutput(),
    env: process.env,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  });
}
