// Connections that come and go with people and channels are closed once idle: a bot running for days does not keep
// one open per person who ever called a signed-in server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnections } from '../../src/mcp/connections.ts';
import type { McpServerConfig } from '../../src/config/mcpSettings.ts';
import { createServiceLauncher } from '../../src/exec/longRunning.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { startEverythingHttp, type EverythingHttp } from './everythingHttp.ts';

let everything: EverythingHttp;
beforeAll(async () => {
  everything = await startEverythingHttp();
}, 30_000);
afterAll(async () => everything?.close());

describe('MCP connections over days', () => {
  it("closes a person's connection after it was idle, keeps a shared one, and connects afresh on the next call", async () => {
    let now = 1_000_000;
    const logger = silentLogger();
    // Remote servers only: the launcher (for stdio servers) is never asked.
    const launcher = createServiceLauncher({ mode: 'bwrap', logger, sandbox: async () => ({ mode: 'bwrap', usable: false, problem: 'no stdio server here', fix: 'none' }) });
    const connections = new McpConnections({ launcher, logger, timeoutMs: 10_000, idleMs: 15 * 60_000, now: () => now });
    const personal: McpServerConfig = { name: 'tracker', type: 'http', url: everything.url, headers: {} };
    const shared: McpServerConfig = { name: 'wiki', type: 'http', url: everything.url, headers: { Authorization: 'Bearer operator' } };
    const scope = (personId: string) => ({ worldId: 'slack:T1:C1', personId, network: false });
    try {
      for (const person of ['UA', 'UB', 'UC']) expect((await connections.get(personal, scope(person))).ok).toBe(true);
      expect((await connections.get(shared, scope('UA'))).ok).toBe(true);
      expect(connections.held).toBe(4);

      now += 10 * 60_000;
      expect((await connections.get(personal, scope('UC'))).ok).toBe(true); // UC stays in use
      now += 10 * 60_000;
      // The sweep runs on the next call: UA and UB have been idle 20 minutes, UC 10; the shared one stays.
      const again = await connections.get(personal, scope('UD'));
      expect(again.ok).toBe(true);
      expect(connections.held).toBe(3);

      // UA's next call connects afresh and works.
      const back = await connections.get(personal, scope('UA'));
      if (!back.ok) throw new Error(back.why);
      const result = await back.client.callTool({ name: 'echo', arguments: { message: 'still here' } });
      expect(JSON.stringify(result.content)).toContain('Echo: still here');
      expect(connections.held).toBe(4);
    } finally {
      await connections.close();
    }
  }, 60_000);
});
