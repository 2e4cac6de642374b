// Issue 35, N2 and N4: every byte a server sends is bounded. A remote server's endless JSON answer, endless SSE
// event, or endless event on the GET stream it gets at connect, and a stdio server's 31 MiB message, each cut the
// server off at the message bound, with the reason, while another chat is answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../../src/config/mcpSettings.ts';
import { until } from '../../until.ts';
import { type FloodServer, startFloodServer } from '../fixtures/floodHttpServer.ts';
import type { McpHarness } from '../harness.ts';
import { callOne, ROUND4_SERVER, SDK, startRound4Bot } from './round4Bot.ts';

let flood: FloodServer;
let bot: McpHarness;
beforeAll(async () => {
  flood = await startFloodServer();
  bot = await startRound4Bot((config) => {
    config.mcp.servers = resolveMcpServers(
      {
        r4: { command: 'node', args: [ROUND4_SERVER, SDK] },
        json: { type: 'http', url: flood.url('mcp'), headers: { authorization: 'Bearer static' } },
        event: { type: 'http', url: flood.url('mcp'), headers: { authorization: 'Bearer static' } },
        getflood: { type: 'http', url: flood.url('get-flood'), headers: { authorization: 'Bearer static' } },
        chatter: { type: 'http', url: flood.url('get-comments'), headers: { authorization: 'Bearer static' } },
      },
      {},
    );
    config.defaults.mcpNoApproval = ['mcp__r4__*', 'mcp__json__*', 'mcp__event__*'];
  });
}, 60_000);
afterAll(async () => {
  await bot?.close();
  await flood?.close();
});

const MiB = 1024 * 1024;

describe('N2: a remote server that sends without end', () => {
  it('an endless JSON answer is cut at 4 MiB: the call fails with the reason, the server is left down, another chat answers', async () => {
    const before = flood.sent();
    const call = callOne(bot, 'mcp__json__huge-json', {}, 'n2-json');
    expect((await bot.say('hello', 'n2-json-other')).reply).toContain('still here');
    expect(await call).toBe('mcp__json__huge-json failed: the MCP server json was cut off (it sent a response longer than 4 MiB), and is left down for now.');
    expect(flood.sent() - before).toBeLessThan(64 * MiB);
    const json = bot.app.config.mcp.servers.find((entry) => entry.name === 'json')!;
    const again = await bot.app.mcp!.connections.get(json, { worldId: 'terminal:local', personId: 'U1', network: false });
    expect(!again.ok && again.why).toBe('the MCP server json was cut off and is left down for now: it sent a response longer than 4 MiB');
  }, 60_000);

  it('an endless SSE event is cut at 4 MiB', async () => {
    const before = flood.sent();
    expect(await callOne(bot, 'mcp__event__huge-event', {}, 'n2-event')).toBe('mcp__event__huge-event failed: the MCP server event was cut off (it sent an event longer than 4 MiB), and is left down for now.');
    expect(flood.sent() - before).toBeLessThan(64 * MiB);
  }, 60_000);

  it.each([
    ['getflood', 'it sent an event longer than 4 MiB'],
    ['chatter', 'its event stream sent more than 4 MiB without an event that carries data'],
  ])('a GET stream opened at connect that sends without end (%s) cuts the server off, with the reason', async (name, why) => {
    const server = bot.app.config.mcp.servers.find((entry) => entry.name === name)!;
    const scope = { worldId: 'terminal:local', personId: 'U1', network: false };
    // The stream opens once the client says it is initialized: the cut may come before or after the tools are listed.
    await bot.app.mcp!.connections.get(server, scope);
    await until(async () => ((await bot.app.mcp!.connections.get(server, scope)).ok ? undefined : true), 'the GET stream to cut the server off', 20_000);
    const after = await bot.app.mcp!.connections.get(server, scope);
    expect(!after.ok && after.why).toBe(`the MCP server ${name} was cut off and is left down for now: ${why}`);
    const sent = flood.sent();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(flood.sent() - sent).toBeLessThan(2 * MiB);
  }, 60_000);
});

describe('N4: a stdio server\'s 31 MiB message', () => {
  it('is cut at 4 MiB, read once (not rescanned per chunk), while another chat answers', async () => {
    const call = callOne(bot, 'mcp__r4__flood', {}, 'n4-flood');
    expect((await bot.say('hello', 'n4-other')).reply).toContain('still here');
    expect(await call).toBe('mcp__r4__flood failed: the MCP server r4 was cut off (it sent a message longer than 4 MiB), and is left down for now.');
  }, 60_000);
});
