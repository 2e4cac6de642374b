import { processOutput } from '../src/commandOutput.ts';
import { runCli } from '../src/cli.ts';
import { discordLauncher } from './discord/index.ts';
import { slackLauncher } from './slack/index.ts';
import { runTerminalChat } from './terminal/chat.ts';

/** The composition root: the core's CLI with the platforms the adapters provide. */
export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
    platforms: [slackLauncher, discordLauncher],
    terminal: (app, options) => runTerminalChat(app, { input: process.stdin, output: process.stdout, ...options }),
    output: processOutput,
    env: process.env,
  });
}
