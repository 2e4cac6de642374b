import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../adapters/terminal/chat.ts';
import { lastToolResult, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type Harness, startHarness } from '../agent/harness.ts';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { type EverythingHttp, startEverythingHttp } from './everythingHttp.ts';

let server: EverythingHttp;
let bot: Harness;
beforeAll(async () => {
  server = await startEverythingHttp();
  bot = await startHarness({
    skills: [],
    tweak: (config) => {
      config.mcp.servers = resolveMcpServers({ everything: { type: 'http', url: server.url } }, {});
      config.defaults.mcp = ['everything'];
    },
  });
}, 60_000);
afterAll(async () => {
  await bot?.close();
  await server?.close();
});

/** The terminal chat on a fake TTY, as in tests/terminal/interactive.test.ts. */
function openTty(chatId: string) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 1000 && !printed.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(printed).toContain(text);
  };
  return { input, screen: () => printed, waitFor, done: runTerminalChat(bot.app.core, { input, output, chatId }) };
}

describe('server-everything over Streamable HTTP, in the terminal chat', () => {
  it('shows the card with the full arguments; 1 runs the call once; 2 covers the next call of the tool and not another', async () => {
    const seen: string[] = [];
    bot.fake.setBrain(
      stepsBrain(
        [
          toolUseReply('mcp__everything__echo', { message: 'over http' }, { text: 'Echo first.' }),
          toolUseReply('mcp__everything__echo', { message: 'again' }, { text: 'Echo again.' }),
          toolUseReply('mcp__everything__echo', { message: 'granted' }, { text: 'Echo granted.' }),
          toolUseReply('mcp__everything__get-sum', { a: 20, b: 22 }, { text: 'A sum.' }),
          (req) => textReply(`sum said: ${lastToolResult(req)?.content}`),
        ],
        seen,
      ),
    );
    const { input, screen, waitFor, done } = openTty('http-tty');
    input.write('use the everything server\n');
    await waitFor('Approval needed: Call mcp__everything__echo (MCP server everything)?');
    expect(screen()).toContain('│   "message": "over http"');
    expect(screen()).toContain('1) Yes, once   2) Yes, for this session   3) No');
    input.write('1\n');
    await waitFor('"message": "again"');
    input.write('2\n');
    await waitFor('Approval needed: Call mcp__everything__get-sum');
    expect(screen().split('Approval needed: Call mcp__everything__echo').length - 1).toBe(2);
    input.write('1\n');
    await waitFor('sum said:');
    expect(screen()).toContain('The sum of 20 and 22 is 42');
    expect(seen.slice(0, 3)).toEqual(['Echo: over http', 'Echo: again', 'Echo: granted']);
    input.write('/quit\n');
    expect(await done).toBe(0);
  }, 60_000);
});
