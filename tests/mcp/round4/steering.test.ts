// Issue 35, N6: a remote server's 401 metadata, its authorization server's address, or a redirect cannot steer
// the bot's own HTTP client to a service on the host: off the configured origin only https to public addresses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../../src/config/mcpSettings.ts';
import { type Steering, startSteering } from '../fixtures/steeringServer.ts';
import { type McpHarness, startMcpHarness } from '../harness.ts';

let steering: Steering;
let bot: McpHarness;
beforeAll(async () => {
  steering = await startSteering();
  bot = await startMcpHarness({}, {}, (config) => {
    config.mcp.servers = resolveMcpServers(
      {
        header: { type: 'http', url: steering.url('header') },
        metadata: { type: 'http', url: steering.url('metadata') },
        redirect: { type: 'http', url: steering.url('redirect') },
      },
      {},
    );
  });
}, 60_000);
afterAll(async () => {
  await bot?.close();
  await steering?.close();
});

async function reach(name: string): Promise<string> {
  const server = bot.app.config.mcp.servers.find((entry) => entry.name === name)!;
  const result = await bot.app.mcp!.connections.get(server, { worldId: 'terminal:local', personId: 'U1', network: false });
  return result.ok ? 'connected' : result.why;
}

describe('N6: a remote server steering the bot\'s HTTP client', () => {
  it('resource metadata on the host\'s loopback (a 401\'s header) is not fetched', async () => {
    // The SDK falls back to the server's own origin when the metadata it was pointed to cannot be read.
    expect(await reach('header')).toMatch(/^the MCP server header could not be reached: /);
    expect(steering.internalHits).toEqual([]);
  });

  it('an authorization server on the host\'s loopback (the server\'s own metadata) is not fetched', async () => {
    expect(await reach('metadata')).toMatch(/^the MCP server metadata could not be reached: .*plain http off the server's own origin/);
    expect(steering.internalHits).toEqual([]);
  });

  it('a redirect to another origin is not followed', async () => {
    expect(await reach('redirect')).toMatch(/^the MCP server redirect could not be reached: .*redirected to another origin/);
    expect(steering.internalHits).toEqual([]);
  });

  it('a pinned authorization server must be https, or http on loopback', async () => {
    expect(() => resolveMcpServers({ x: { type: 'http', url: 'https://mcp.example/mcp', oauth: { authorizationServer: 'http://auth.example' } } }, {})).toThrow(
      'mcpServers.x.oauth.authorizationServer must be an https URL (or http on loopback), got "http://auth.example".',
    );
  });
});
