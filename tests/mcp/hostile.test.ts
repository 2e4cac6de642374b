import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join, dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';
import { realpathSync } from 'node:fs';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';

const SDK = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = join(import.meta.dirname, 'fixtures', 'hostileServer.mjs');

let bot: McpHarness;
let secretFile: string;
let listener: Server;
let port: number;
beforeAll(async () => {
  listener = createServer((socket) => socket.end('host service\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
  bot = await startMcpHarness({}, { mcpNoApproval: ['mcp__hostile__*'] }, (config) => {
    // The bot's own secret file, beside its data: the server is told where it is, and may not see that folder.
    secretFile = join(dirname(config.skillsDirs[0]!), '.env');
    config.mcp.timeoutMs = 4000;
    config.mcp.servers = resolveMcpServers(
      {
        hostile: { command: 'node', args: [SERVER, SDK, String(process.pid)], env: { TOKEN: 'its-own', SECRET_FILE: secretFile } },
        // Naming the bot's own file on the command line would mount its folder: refused.
        nosy: { command: 'node', args: [SERVER, SDK, '1', secretFile] },
      },
      {},
    );
  });
  await writeFile(secretFile, 'ANTHROPIC_API_KEY=sk-very-secret\n');
}, 60_000);
afterAll(async () => {
  await bot?.close();
  listener?.close();
});

async function callOne(tool: string, input: object, chat: string): Promise<{ seen: string[]; tools: string[] }> {
  const seen: string[] = [];
  let tools: string[] = [];
  bot.fake.setBrain((req) => {
    if (lastUserText(req) === 'hello') return textReply('still here');
    tools = req.tools.map((entry) => entry.name);
    return stepsBrain([toolUseReply(tool, input, { text: 'Trying.' }), textReply('over')], seen)(req);
  });
  await bot.say('go', chat);
  return { seen, tools };
}

describe('a hostile stdio server', () => {
  it('cannot offer a tool named like ours, nor one whose schema has 10,000 properties', async () => {
    const { tools } = await callOne('mcp__hostile__big', {}, 'h-list');
    expect(tools).not.toContain('mcp__hostile__load_skill');
    expect(tools).not.toContain('mcp__hostile__wide');
    expect(tools).toContain('mcp__hostile__sneaky');
    expect(tools.filter((name) => name === 'load_skill')).toHaveLength(1);
  }, 60_000);

  it('a 3 MiB result is cut to the bound, saying how much', async () => {
    const { seen } = await callOne('mcp__hostile__big', {}, 'h-big');
    expect(seen[0]!.length).toBeLessThan(70_000);
    expect(seen[0]).toMatch(/\(result cut: \d+ more characters were dropped\)/);
  }, 60_000);

  it('a call that never answers ends at MCP_TIMEOUT_MS with one sentence, and the bot answers another chat meanwhile', async () => {
    const slow = callOne('mcp__hostile__never', {}, 'h-never');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const other = await bot.say('hello', 'h-other');
    expect(other.reply).toContain('still here');
    const { seen } = await slow;
    expect(seen[0]).toBe('mcp__hostile__never did not answer within 4 seconds (MCP_TIMEOUT_MS), so the call was cancelled.');
  }, 60_000);

  it('garbage on stdout ends the connection with one sentence, and the next call starts the server afresh', async () => {
    const { seen } = await callOne('mcp__hostile__garbage', {}, 'h-garbage');
    expect(seen[0]).toMatch(/^mcp__hostile__garbage failed: the MCP server hostile answered with an error or something unreadable \(.+\)\.$/);
    const after = await callOne('mcp__hostile__sneaky', {}, 'h-after-garbage');
    expect(after.seen[0]).toBe('ran sneaky');
  }, 60_000);

  it("sees neither the bot's environment, nor its files, nor the host's loopback", async () => {
    const { seen } = await callOne('mcp__hostile__peek', {}, 'h-peek');
    expect(seen[0]).toContain(`/proc/${process.pid}/environ: ENOENT`);
    expect(seen[0]).toContain(`${secretFile}: ENOENT`);
    expect(seen[0]).not.toContain('sk-very-secret');
    expect(seen[0]).toMatch(/env keys: HOME,LANG,PATH,PWD,SECRET_FILE,TMPDIR,TOKEN$/m);
    const loop = await callOne('mcp__hostile__loopback', { port }, 'h-loop');
    expect(loop.seen[0]).not.toContain('connected');
  }, 60_000);
});

describe('a stdio server whose command line names the bot\'s own folder', () => {
  it('is not started, and says why in one sentence', async () => {
    const nosy = bot.app.config.mcp.servers.find((server) => server.name === 'nosy')!;
    const result = await bot.app.mcp!.connections.get(nosy, { worldId: 'terminal:local', personId: 'U1', network: false });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.why).toMatch(/^the MCP server nosy is not started: its command line names a file in \/.+, which holds the bot's own .+workspaces, and a server never sees the bot's files/);
  });
});
