// npm run bench:mcp — what MCP costs beside the server itself:
// 1. a tool call's overhead through skillbot (tool lookup, schema check, audit, result conversion; the approval
//    aside: the tool is in mcpNoApproval) over a direct SDK client call to the same server (server-everything over
//    stdio; ours in the sandbox). Target: p50 overhead ≤ 2 ms.
// 2. the prompt characters of a world with 10 servers × 500 tools, and whether they are the same bytes twice.
//    Target ≤ 15,000 characters, byte-stable.
// 3. the store operations (and bytes) per minute of one running MCP task, its holder's and another instance's
//    (mcpTaskOps.ts).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/ops/log.ts';
import { buildWorldTools } from '../src/mcp/toolCatalog.ts';
import { taskStoreFigures } from './mcpTaskOps.ts';

const ENTRY = join(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const CALLS = 300;
const WARMUP = 30;

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? NaN;
const ms = (value: number) => `${value.toFixed(3)} ms`;

async function timed(call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call(i);
    times.push(performance.now() - started);
  }
  return times;
}

async function direct(): Promise<number[]> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [ENTRY, 'stdio'], stderr: 'ignore' }));
  try {
    return await timed((i) => client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } }));
  } finally {
    await client.close();
  }
}

async function throughSkillbot(): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-bench-mcp-'));
  await chmod(dir, 0o755);
  const file = join(dir, 'skillbot.yaml');
  await writeFile(file, `mcpServers:\n  everything: { command: node, args: [${JSON.stringify(ENTRY)}, stdio] }\ndefaults: { mcp: ['*'], mcpNoApproval: ['mcp__everything__*'] }\n`);
  const config = loadConfig({ ANTHROPIC_API_KEY: 'bench', STORE_URL: 'memory://', SKILLBOT_CONFIG: file, SKILLS_DIRS: join(dir, 'skills'), WORKSPACES_DIR: join(dir, 'w') });
  const app = await createApp(config, silentLogger(), { watchSkills: false });
  try {
    const turn = {
      turnId: 't',
      worldId: 'terminal:local',
      chatId: 'terminal:local/bench',
      requesterId: 'U1',
      approvalTimeoutMs: 1000,
      mcp: ['*'],
      mcpNoApproval: ['mcp__everything__*'],
      network: [], egressAllow: [],
      signal: new AbortController().signal,
      nextApprovalKey: () => 'k',
      progress: () => {},
      notice: () => {},
    };
    const tools = await app.mcp!.tools.forTurn(turn);
    return await timed(async (i) => {
      const outcome = await tools.run('mcp__everything__echo', { message: `hello ${i}` });
      if (outcome.isError === true) throw new Error(outcome.content);
    });
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function promptFigures(): void {
  const listings = () =>
    Array.from({ length: 10 }, (_, s) => ({
      server: `server${s}`,
      tools: Array.from({ length: 500 }, (_, t) => ({
        name: `tool_${t}`,
        description: `Does thing ${t} of server ${s}: creates, lists or updates issues, pages and documents for the team.`,
        inputSchema: { type: 'object' as const, properties: { id: { type: 'string', description: 'The item id.' }, text: { type: 'string' } }, required: ['id'] },
      })),
    }));
  const first = buildWorldTools(listings(), 20_000);
  const second = buildWorldTools(listings(), 20_000);
  const bytes = JSON.stringify(first.definitions);
  console.log(`prompt: 10 servers × 500 tools → ${first.definitions.length} tool definitions, ${bytes.length} characters (target ≤ 15,000); byte-stable: ${bytes === JSON.stringify(second.definitions)}`);
}

console.log(`machine: ${cpus().length} CPUs, load ${loadavg().map((value) => value.toFixed(2)).join(' ')} (shared machine: figures are indicative)`);
promptFigures();
const bare = await direct();
const ours = await throughSkillbot();
console.log(`direct SDK client (bare node): p50 ${ms(p(bare, 0.5))}, p95 ${ms(p(bare, 0.95))}`);
console.log(`through skillbot (sandboxed server, approval aside): p50 ${ms(p(ours, 0.5))}, p95 ${ms(p(ours, 0.95))}`);
console.log(`overhead p50: ${ms(p(ours, 0.5) - p(bare, 0.5))} (target ≤ 2 ms)`);
await taskStoreFigures();
