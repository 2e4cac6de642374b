import { processOutput } from '../src/ops/commandOutput.ts';
import { runCli } from '../src/cli/cli.ts';
import { ConfigError, type PlatformLauncher } from '../src/platform/index.ts';
import { discordEnabled } from './discord/enabled.ts';
import { slackEnabled } from './slack/enabled.ts';

/** A platform's own start-up error a person can fix (a refused token, a missing intent) is a config error: one line, exit 2. */
async function startingDiscord(start: () => Promise<Awaited<ReturnType<PlatformLauncher['start']>>>) {
  try {
    return await start();
  } catch (error) {
    const { DiscordStartError } = await import('./discord/index.ts');
    throw error instanceof DiscordStartError ? new ConfigError(error.message) : error;
  }
}

// A platform's SDK is imported only when that platform starts: `skills list` never loads Bolt or discord.js.
const platforms: PlatformLauncher[] = [
  { name: 'slack', enabled: slackEnabled, start: async (core, http) => (await import('./slack/index.ts')).slackLauncher.start(core, http) },
  {
    name: 'discord',
    enabled: discordEnabled,
    start: (core, http) => startingDiscord(async () => (await import('./discord/index.ts')).discordLauncher.start(core, http)),
  },
];

/** The composition root: the core's CLI with the platforms the adapters provide. */
export async function main(argv: string[]): Promise<number> {
  const output = processOutput();
  try {
    return await runCli(argv, {
      platforms,
      terminal: async (core, options) => {
        const { runTerminalChat } = await import('./terminal/chat.ts');
        return runTerminalChat(core, { input: process.stdin, output: process.stdout, ...options });
      },
      output,
      env: process.env,
      interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    });
  } catch (error) {
    // Not a mistake the CLI knows (those are one line, exit 2): still one line, the stack only when asked for.
    const message = error instanceof Error ? error.message : String(error);
    output.err(`skillbot: ${message.split('\n')[0]} (set LOG_LEVEL=debug for details)`);
    if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') output.err(error instanceof Error ? (error.stack ?? message) : message);
    return 1;
  }
}
