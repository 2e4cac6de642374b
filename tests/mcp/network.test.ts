// A stdio MCP server with the network, or without: a world that lists the server under `network` gives it the egress
// proxy (the executor's egress process, with the world's egressAllow), so it reaches an allowed outside host (a
// network namespace the test makes, as the exec egress tests do) and never the host; without `network` it has no
// network at all. The server is a tiny one of our own on the SDK's Server, in the sandbox.
import { realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { openTestNetns, type TestNetns } from '../exec/testNetns.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const SDK = realpathSync(join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = join(import.meta.dirname, 'fixtures', 'fetchServer.mjs');
const servers = { fetcher: { command: 'node', args: [SERVER, SDK] } };

let netns: TestNetns;
/** A service on the host's loopback, counting who reached it. */
let host: Server;
let hostPort: number;
let hostConnections = 0;
let networked: McpHarness;
let offline: McpHarness;
/** Listed under network, but its world allows no private range: the outside host (on 10.x) is not public. */
let unallowed: McpHarness;

beforeAll(async () => {
  netns = await openTestNetns();
  host = createServer((socket) => {
    hostConnections += 1;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\nhost service');
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostPort = (host.address() as { port: number }).port;
  const world = { mcpNoApproval: ['mcp__fetcher__*'] };
  networked = await startMcpHarness(servers, { ...world, network: ['fetcher'] }, (config) => {
    config.defaults.egressAllow = [netns.subnet];
  });
  offline = await startMcpHarness(servers, world, (config) => {
    config.defaults.egressAllow = [netns.subnet];
  });
  unallowed = await startMcpHarness(servers, { ...world, network: ['fetcher'] });
}, 60_000);

afterAll(async () => {
  await networked?.close();
  await offline?.close();
  await unallowed?.close();
  host?.close();
  await netns?.close();
});

/** The fetch tool's result for each URL, in one turn. */
async function fetchAll(bot: McpHarness, urls: string[], chat: string): Promise<string[]> {
  const seen: string[] = [];
  bot.fake.setBrain(stepsBrain([...urls.map((url) => toolUseReply('mcp__fetcher__fetch', { url }, { text: 'Fetching.' })), textReply('fetched')], seen));
  await bot.say('fetch these', chat);
  return seen;
}

describe('a stdio MCP server and the network', () => {
  it('listed under network: reaches an allowed outside host through the egress proxy; the host, loopback or own address, is refused', async () => {
    const outside = `http://${netns.address}:${netns.httpPort}/from-mcp`;
    const [allowed, loopback, ownAddress] = await fetchAll(networked, [outside, `http://127.0.0.1:${hostPort}/`, `http://${netns.hostAddress}:${hostPort}/`], 'net-on');
    expect(allowed).toBe('via proxy; status 200: hello from the test namespace over http /from-mcp');
    expect(loopback).toBe(`via proxy; status 403: skillbot egress proxy refused 127.0.0.1:${hostPort} for mcp fetcher for terminal:local: 127.0.0.1 is the host's loopback`);
    expect(ownAddress).toMatch(/^via proxy; status 403: skillbot egress proxy refused .+ is one of the host's own addresses$/);
    expect(hostConnections).toBe(0);
  }, 60_000);

  it("listed under network, in a world whose egressAllow does not name the host's range: the private host is refused", async () => {
    const [outside] = await fetchAll(unallowed, [`http://${netns.address}:${netns.httpPort}/from-mcp`], 'net-unallowed');
    expect(outside).toMatch(/^via proxy; status 403: skillbot egress proxy refused .+ is in a private or reserved range$/);
  }, 60_000);

  it('not listed: no proxy and no network at all, not even to the allowed host; the host loopback is not reached', async () => {
    const [outside, loopback] = await fetchAll(offline, [`http://${netns.address}:${netns.httpPort}/from-mcp`, `http://127.0.0.1:${hostPort}/`], 'net-off');
    expect(outside).toMatch(/^no proxy; error: (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)/);
    // The sandbox's loopback is its own: nothing listens there.
    expect(loopback).toBe('no proxy; error: ECONNREFUSED');
    expect(hostConnections).toBe(0);
  }, 60_000);
});
