// Issue 37 item 5 and issue 35 item 4: a stdio MCP server runs from the executor's one sandbox plan, in a cgroup
// with the runs' bounds: its CPU held to SCRIPT_CPU_PERCENT (measured by the kernel's own accounting of its cgroup
// over a wall interval, not by timing), and a server that allocates past its memoryMb killed there and left down
// with the reason.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/config/mcpSettings.ts';
import { cpuBoundable, detectBoundsMode } from '../../src/exec/runCgroup.ts';
import { stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { until } from '../until.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const SDK = realpathSync(path.join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
const SERVER = path.join(import.meta.dirname, 'fixtures', 'boundsServer.mjs');
const CPU_PERCENT = 20;
const host = detectBoundsMode();
const cpuHere = host.kind === 'cgroup' && cpuBoundable(host);
// CI runs as root on a host with a cpu hierarchy the bot may write: there the bound must hold, never be skipped.
if (process.env.CI === 'true' && !cpuHere) throw new Error('CI needs a CPU quota per sandbox here, but the host gives no cpu controller');

/** CPU time (µs) of this bot's sandboxes' cgroups, by the kernel's accounting (cpuacct.usage, or v2 cpu.stat). */
function sandboxesCpuUs(): number {
  if (host.kind !== 'cgroup') return 0;
  const runsDir = host.version === 2 ? host.runsDir : (host.cpuacctRunsDir ?? host.cpuRunsDir ?? '');
  let total = 0;
  for (const entry of readdirSync(runsDir).filter((name) => name.startsWith(`run-${process.pid}-`))) {
    const dir = path.join(runsDir, entry);
    if (host.version === 2) total += Number(/^usage_usec (\d+)$/m.exec(readFileSync(path.join(dir, 'cpu.stat'), 'utf8'))?.[1] ?? 0);
    else total += Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1000;
  }
  return total;
}

let bot: McpHarness;
beforeAll(async () => {
  bot = await startMcpHarness({}, { mcpNoApproval: ['mcp__bounds__*'] }, (config) => {
    config.sandbox.limits = { ...config.sandbox.limits, cpuPercent: CPU_PERCENT };
    config.mcp.servers = resolveMcpServers({ bounds: { command: 'node', args: [SERVER, SDK], memoryMb: 128 } }, {});
  });
}, 60_000);
afterAll(async () => bot?.close());

describe.runIf(cpuHere)('a stdio MCP server in the runs\' cgroup', () => {
  it(`is held to SCRIPT_CPU_PERCENT (${CPU_PERCENT}% of a CPU) while it spins`, async () => {
    const seen: string[] = [];
    bot.fake.setBrain(stepsBrain([toolUseReply('mcp__bounds__spin', { seconds: 6 }, { text: 'Spinning.' }), textReply('done')], seen));
    const turn = bot.say('spin', 'cpu');
    // The server is up and spinning once its cgroup has used some CPU; then the kernel's count over 2 s of wall time.
    await until(() => (sandboxesCpuUs() > 50_000 ? true : undefined), 'the spinning server to use CPU', 20_000);
    const startUs = sandboxesCpuUs();
    const startedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const usedUs = sandboxesCpuUs() - startUs;
    const wallUs = (performance.now() - startedAt) * 1000;
    await turn;
    expect(seen[0]).toMatch(/^spun for 6 s/);
    // Unbounded, one busy loop uses ~100% of the interval; held, about a fifth of it.
    expect(usedUs).toBeLessThanOrEqual((CPU_PERCENT / 100) * wallUs * 1.5);
    expect(usedUs).toBeGreaterThan((CPU_PERCENT / 100) * wallUs * 0.3);
  }, 60_000);
});

describe.runIf(host.kind === 'cgroup')('a stdio MCP server past its memoryMb', () => {
  it('is killed at the bound and left down with the reason', async () => {
    const seen: string[] = [];
    bot.fake.setBrain(stepsBrain([toolUseReply('mcp__bounds__grow', {}, { text: 'Growing.' }), textReply('over')], seen));
    await bot.say('grow', 'memory');
    expect(seen[0]).toMatch(/memory bound \(128 MiB/);
    const server = bot.app.config.mcp.servers.find((entry) => entry.name === 'bounds')!;
    const again = await bot.app.mcp!.connections.get(server, { worldId: 'terminal:local', personId: 'U1', network: false });
    expect(!again.ok && again.why).toMatch(/^the MCP server bounds was cut off and is left down for now: it reached its memory bound \(128 MiB for the server as a whole: mcpServers\.<name>\.memoryMb\)$/);
  }, 60_000);
});
