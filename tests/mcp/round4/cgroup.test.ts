// Issue 35, N5: a stdio server is bounded as a run is, as a whole: its processes share one cgroup whose memory is
// the server's `memoryMb`, so five processes of 100 MiB each cannot all hold their memory under 256 MiB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../../src/config/mcpSettings.ts';
import type { McpHarness } from '../harness.ts';
import { callOne, ROUND4_SERVER, SDK, startRound4Bot } from './round4Bot.ts';

let bot: McpHarness;
beforeAll(async () => {
  bot = await startRound4Bot((config) => {
    config.mcp.servers = resolveMcpServers({ r4: { command: 'node', args: [ROUND4_SERVER, SDK], memoryMb: 256 } }, {});
  });
}, 60_000);
afterAll(async () => bot?.close());

describe('N5: a stdio server in a cgroup of its own', () => {
  it('holds at most its memoryMb across all its processes', async () => {
    const said = await callOne(bot, 'mcp__r4__hog', {}, 'n5-hog');
    const held = Number(/^holding: (\d) of 5/.exec(said)?.[1] ?? NaN);
    expect(said).toMatch(/^holding: \d of 5/);
    // Where the host gives the bot no cgroups (docs/security.md#bounds) all five hold theirs: this fails there.
    expect(held * 100).toBeLessThan(256);
  }, 60_000);
});
