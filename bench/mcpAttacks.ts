// npm run bench:mcpAttacks — issue 35's MCP attacks against a real bot (the test harness: the app, the fake
// Anthropic API, stdio servers in the sandbox): for each, the bot's RSS before and at its peak while the attack
// runs, how long another chat waits for its answer meanwhile, and how the attack ended.
// Targets: peak RSS within +512 MiB of the start, the other chat answered within 5 s.
//   N2: a remote server's endless JSON answer, endless SSE event, endless event on the GET stream at connect
//   N3: a backtracking `pattern` in a tool's input schema and in its output schema (33 characters)
//   N4: a stdio server's 31 MiB message
import { performance } from 'node:perf_hooks';
import { resolveMcpServers } from '../src/config/mcpSettings.ts';
import { startFloodServer } from '../tests/mcp/fixtures/floodHttpServer.ts';
import { callOne, ROUND4_SERVER, SDK, startRound4Bot } from '../tests/mcp/round4/round4Bot.ts';

const MiB = 1024 * 1024;
const flood = await startFloodServer();
const bot = await startRound4Bot((config) => {
  const remote = (path: 'mcp' | 'get-flood') => ({ type: 'http' as const, url: flood.url(path), headers: { authorization: 'Bearer static' } });
  config.mcp.servers = resolveMcpServers({ r4: { command: 'node', args: [ROUND4_SERVER, SDK] }, json: remote('mcp'), event: remote('mcp'), getflood: remote('get-flood') }, {});
  config.defaults.mcpNoApproval = ['mcp__r4__*', 'mcp__json__*', 'mcp__event__*'];
});

/** Runs `attack`, sampling RSS every 20 ms, and asks another chat `hello` 100 ms in. */
async function measure(name: string, attack: () => Promise<string>): Promise<boolean> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const started = performance.now();
  const outcome = attack();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const asked = performance.now();
  const other = await bot.say('hello', `other-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  const otherMs = performance.now() - asked;
  const said = await outcome;
  const attackMs = performance.now() - started;
  clearInterval(sampler);
  const grew = (peak - before) / MiB;
  const ok = grew <= 512 && otherMs <= 5000 && other.reply.includes('still here');
  console.log(
    `${name.padEnd(26)} rss ${(before / MiB).toFixed(0)} → peak ${(peak / MiB).toFixed(0)} MiB (+${grew.toFixed(0)})  other chat ${otherMs.toFixed(0)} ms  attack ${attackMs.toFixed(0)} ms  ${ok ? 'ok' : 'OVER TARGET'}\n${' '.repeat(28)}${said.slice(0, 150)}`,
  );
  return ok;
}

const scope = { worldId: 'terminal:local', personId: 'U1', network: false };
async function getFlood(): Promise<string> {
  const server = bot.app.config.mcp.servers.find((entry) => entry.name === 'getflood')!;
  await bot.app.mcp!.connections.get(server, scope);
  for (let i = 0; i < 200; i++) {
    const state = await bot.app.mcp!.connections.get(server, scope);
    if (!state.ok) return state.why;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'still connected after 10 s';
}

const results = [
  await measure('N2 endless JSON answer', () => callOne(bot, 'mcp__json__huge-json', {}, 'n2-json')),
  await measure('N2 endless SSE event', () => callOne(bot, 'mcp__event__huge-event', {}, 'n2-event')),
  await measure('N2 endless GET stream', getFlood),
  await measure('N3 input schema pattern', () => callOne(bot, 'mcp__r4__pattern-in', { text: `${'a'.repeat(32)}!` }, 'n3-in')),
  await measure('N3 output schema pattern', () => callOne(bot, 'mcp__r4__pattern-out', {}, 'n3-out')),
  await measure('N4 31 MiB stdio message', () => callOne(bot, 'mcp__r4__flood', {}, 'n4')),
];
console.log(`bytes the hostile HTTP server managed to send in all: ${(flood.sent() / MiB).toFixed(0)} MiB`);
await bot.close();
await flood.close();
process.exit(results.every(Boolean) ? 0 : 1);
