// `/mcp attach` and `/mcp prompt` in the terminal chat (pipe mode), on an App with our own MCP server on the current
// SDK in the sandbox: the resource saved as a file beside the chat's outputs and its path printed; the prompt run as
// the chat's turn, its answer printed.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../../adapters/terminal/chat.ts';
import { type FakeAnthropic, lastUserText, textReply } from '../../fakes/anthropic.ts';
import { makeSkillsDir } from '../../platforms/skills.ts';
import { type SlackBot, useSlackBot } from '../../slack/harness.ts';
import { ourStdioServerConfig } from '../fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'resourceServer.mjs');
afterAll(() => setup.remove());

let anthropic: FakeAnthropic;
let bot: SlackBot;
const setup = await makeSkillsDir([]);
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('notes', SERVER));
// The App is the one the Slack harness builds (a configured MCP server, the fake model); the terminal chat is given its core.
useSlackBot((started) => ({ anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile, OUTPUTS_DIR: join(setup.dir, 'outputs') } });

async function pipe(lines: string[]): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  input.end(lines.map((line) => `${line}\n`).join(''));
  expect(await runTerminalChat(bot.app.core, { input, output, chatId: 'mcp-1' })).toBe(0);
  return printed;
}

describe('/mcp in the terminal chat', () => {
  it('saves an attached resource and prints its path; runs a prompt as the turn and prints the answer', async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req)}`));
    const printed = await pipe(['/mcp attach notes files://team/logo.png', '/mcp prompt notes standup team=web']);
    const saved = /file saved: (\S+logo\.png) \(files:\/\/team\/logo\.png from notes\)/.exec(printed);
    expect(saved).not.toBeNull();
    expect((await readFile(saved![1]!)).byteLength).toBe(13);
    expect(printed).toContain("heard: (the prompt standup of the MCP server notes)\n\nSummarise yesterday's work of the web team in three bullet points.");
  }, 60_000);
});
