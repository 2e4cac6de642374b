// A server's question in the terminal chat: a server of our own (tests/mcp/fixtures/elicitServer.mjs, on the
// official server SDK, stdio in the sandbox) asks mid-call; the chat prints the server and its message, asks each
// field at the prompt, says why a value was turned back and asks that field again, and takes /decline. What the
// server was told comes back in the model's answer, as the fake Claude repeats the tool's result.
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../adapters/terminal/chat.ts';
import { lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from '../mcp/harness.ts';
import { SERVER_SDK } from '../mcp/fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'elicitServer.mjs');
let bot: McpHarness;

beforeAll(async () => {
  bot = await startMcpHarness({ deployer: { command: 'node', args: [SERVER, SERVER_SDK] } }, { mcpNoApproval: ['mcp__deployer__*'] });
  // Like Claude: a sentence, then the call; then what the server said.
  bot.fake.setBrain((req) => {
    const result = lastToolResult(req);
    if (result !== undefined) return textReply(`server said: ${result.content}`);
    const tool = JSON.stringify(req.body?.messages ?? '').includes('sign me in') ? 'sign_in' : 'deploy';
    return { content: [{ type: 'text', text: 'I will ask the deployer.' }, ...toolUseReply(`mcp__deployer__${tool}`, {}).content] };
  });
}, 60_000);
afterAll(() => bot?.close());

/** The chat on a fake TTY, and a wait for a text to show (after what was already waited for). */
function openTty(chatId: string) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let printed = '';
  let seen = 0;
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 1500 && !printed.includes(text, seen); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(printed.slice(seen)).toContain(text);
    seen = printed.indexOf(text, seen) + text.length;
  };
  const type = (line: string) => input.write(`${line}\n`);
  return { type, screen: () => printed, waitFor, done: runTerminalChat(bot.app.core, { input, output, chatId }) };
}

describe("a server's question in the terminal chat", () => {
  it('asks each field, turns back a value outside the schema and asks that field again, then sends the answer', async () => {
    const { type, screen, waitFor, done } = openTty('q-form');
    type('deploy it');
    await waitFor('❓ deployer asks: Deploy to production?');
    await waitFor('Replicas (a whole number, 1 to 9, required)');
    type('12');
    await waitFor('Reason (text, matching ^[a-z ]+$, required)');
    type('release day');
    await waitFor('Password (text, optional, secret');
    type('');
    await waitFor('Confirm (yes or no, optional)');
    type('yes');
    await waitFor('Not sent: the answer does not match what the server asked for: data/replicas must be <= 9. Again:');
    // Only the field named is asked again; the others keep what was typed.
    await waitFor('Replicas (a whole number');
    type('3');
    await waitFor("deployer's question answered.");
    await waitFor('server said: {"action":"accept","content":{"replicas":3,"reason":"release day","confirm":true}}');
    expect(screen()).not.toContain('Reason (text, matching ^[a-z ]+$, required)\n  Not sent');
    type('/quit');
    expect(await done).toBe(0);
  }, 90_000);

  it('tells the server decline on /decline', async () => {
    const { type, waitFor, done } = openTty('q-decline');
    type('deploy it');
    await waitFor('Replicas (a whole number');
    type('/decline');
    await waitFor("deployer's question declined.");
    await waitFor('server said: {"action":"decline"}');
    type('/quit');
    expect(await done).toBe(0);
  }, 90_000);

  it('prints a URL question with its host and link; /open tells the server accept', async () => {
    const { type, waitFor, done } = openTty('q-url');
    type('sign me in');
    await waitFor('🔗 deployer asks you to open a link on billing.example.com: Sign in to the billing system');
    await waitFor('https://billing.example.com/authorize?session=abc');
    type('/open');
    await waitFor('server said: {"action":"accept"}');
    type('/quit');
    expect(await done).toBe(0);
  }, 90_000);

  it('answers cancel in pipe mode, where nobody is at the terminal, and says so', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const done = runTerminalChat(bot.app.core, { input, output, chatId: 'q-pipe' });
    input.end('deploy it\n');
    expect(await done).toBe(0);
    expect(printed).toContain('❓ deployer asks: Deploy to production?');
    expect(printed).toContain('[question] answered cancel automatically (unattended run, nobody to ask).');
    expect(printed).toContain('server said: {"action":"cancel"}');
  }, 90_000);
});
