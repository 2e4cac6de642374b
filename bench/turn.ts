// npm run bench:turn — the core's own cost per turn, against a zero-latency fake model in another thread.
// Turns enter as the terminal's do: submitted to the dispatcher's durable queue (memory store), run under the
// chat's lease, awaited. Prints turns/s, core overhead per turn (submit to outcome, minus the time waiting on the
// model; and the engine's share of it) p50/p99, a whole turn against a bare SDK call to the same fake model
// (turn-baseline), store operations and filesystem writes per plain turn (counts, not times), RSS per active chat,
// and the cache-read share of input tokens over a 10-turn chat.
import Anthropic from '@anthropic-ai/sdk';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildSystemPrompt } from '../src/agent/systemPrompt.ts';
import { OUR_TOOLS } from '../src/agent/tools/index.ts';
import { FIND_SKILLS } from '../src/agent/tools/findSkills.ts';
import { SCHEDULE_FOLLOWUP } from '../src/routines/followupTool.ts';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/ops/log.ts';
import type { IncomingMessage, TurnSink } from '../src/platform/port.ts';
import { writeSkills } from '../tests/agent/harness.ts';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';

const CHATS = Number(process.env.BENCH_CHATS ?? 200);
const TURNS_PER_CHAT = Number(process.env.BENCH_TURNS ?? 10);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const dir = await mkdtemp(join(tmpdir(), 'skillbot-bench-turn-'));
// The sandbox's user must enter it to reach the workspaces (mkdtemp makes it 0700).
await chmod(dir, 0o755);
await writeSkills(
  join(dir, 'skills'),
  Array.from({ length: 50 }, (_, i) => ({
    name: `skill-${String(i).padStart(2, '0')}`,
    description: `Does task number ${i} for the team: a realistic one-line description of what it is for.`,
    body: `# Skill ${i}\nInstructions.`,
  })),
);
const worker = new Worker(new URL('./fakeWorker.mjs', import.meta.url), { workerData: { reply: 'ok, done.' } });
const { url } = await new Promise<{ url: string }>((resolve) => worker.once('message', resolve));

// The workspace is on, as in production: its folder is where a plain turn must not write.
const config = loadConfig({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: url, SKILLS_DIRS: join(dir, 'skills'), STORE_URL: 'memory://', WORKSPACES_DIR: join(dir, 'workspaces') });
const app = await createApp(config, silentLogger(), { watchSkills: false });
const sink: TurnSink = { progress() {}, async reply() {} };
app.dispatcher.addPort('terminal', { sinkFor: () => sink });
app.dispatcher.start();
const submit = (chat: string, text: string) => {
  const message: IncomingMessage = { worldId: 'terminal:local', chatId: `terminal:local/${chat}`, userId: 'U', text };
  return app.dispatcher.submit(message);
};

/** Every file or folder under `root` with its change time: what a run of turns wrote is the difference. */
async function tree(root: string, into = new Map<string, number>()): Promise<Map<string, number>> {
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    const path = join(root, entry.name);
    into.set(path, (await stat(path)).ctimeMs);
    if (entry.isDirectory()) await tree(path, into);
  }
  return into;
}
const storeOperations = async () => (await app.metrics.storeOperations.get()).values.reduce((sum, value) => sum + value.value, 0);

// The same exchange with the SDK alone: the request the bot sends (its system prompt with the catalog, its tools,
// the chat so far and the new message), streamed, with no bot around it. What a skillbot turn costs beyond it is
// the bot's own work.
const bare = new Anthropic({ apiKey: 'bench', baseURL: url, maxRetries: 0 });
const system = [{ type: 'text' as const, text: buildSystemPrompt(app.registry.current().catalog.text, 'terminal'), cache_control: { type: 'ephemeral' as const } }];
// Ours with the shell, as before follow-ups came: the catalog lists every skill, so find_skills is not offered.
const tools = OUR_TOOLS.filter((tool) => tool.name !== FIND_SKILLS && tool.name !== SCHEDULE_FOLLOWUP).map((tool) => tool.definition);
const bareChats = new Map<string, MessageParam[]>();
async function bareTurn(chat: string, text: string): Promise<void> {
  const history = bareChats.get(chat) ?? [];
  const messages: MessageParam[] = [...history, { role: 'user', content: text }];
  const message = await bare.messages.stream({ model: config.model, max_tokens: config.agent.maxTokens, system, tools, messages }).finalMessage();
  bareChats.set(chat, [...messages, { role: 'assistant', content: message.content }]);
}

// Warm both paths alike (the SDK, the JIT, the connection pool): both keep getting faster for hundreds of turns.
const WARM = 600;
for (let turn = 0; turn < WARM; turn++) {
  await submit(`warm${turn % 30}`, `warm ${turn}`);
  await bareTurn(`warm${turn % 30}`, `warm ${turn}`);
}

// Core overhead, measured one turn at a time so that other turns' work does not count as this one's; each bot
// turn is followed by the same turn through the bare SDK, so both see the machine in the same state.
const SOLO = 600;
const overheads: number[] = [];
const engineOverheads: number[] = [];
const wholeTurns: number[] = [];
const bareTurns: number[] = [];
const treeBefore = await tree(dir);
const operationsBefore = await storeOperations();
for (let turn = 0; turn < SOLO; turn++) {
  const submitted = performance.now();
  const outcome = await submit(`solo${turn % 30}`, `solo ${turn}`);
  wholeTurns.push(performance.now() - submitted);
  overheads.push(performance.now() - submitted - outcome.modelMs);
  engineOverheads.push(outcome.durationMs - outcome.modelMs);
  const started = performance.now();
  await bareTurn(`solo${turn % 30}`, `solo ${turn}`);
  bareTurns.push(performance.now() - started);
}
const operationsPerTurn = ((await storeOperations()) - operationsBefore) / SOLO;
const operationsByKind = (await app.metrics.storeOperations.get()).values
  .map((value) => ({ kind: `${value.labels.operation}${value.labels.namespace ? ` ${value.labels.namespace}` : ''}`, count: value.value }))
  .sort((a, b) => b.count - a.count);
const treeAfter = await tree(dir);
const written = [...treeAfter].filter(([path, changed]) => treeBefore.get(path) !== changed).length;

global.gc?.();
const rssBefore = process.memoryUsage().rss;
const cacheShares: number[] = [];
const elu = performance.eventLoopUtilization();
const started = performance.now();
await Promise.all(
  Array.from({ length: CHATS }, async (_, chat) => {
    const usage = { read: 0, prompt: 0 };
    for (let turn = 0; turn < TURNS_PER_CHAT; turn++) {
      const outcome = await submit(`chat${chat}`, `message ${turn} of a realistic length for a chat turn`);
      if (outcome.status !== 'answered') throw new Error(`turn failed: ${outcome.status}`);
      if (turn >= 1) {
        usage.read += outcome.usage.cacheRead;
        usage.prompt += outcome.usage.input + outcome.usage.cacheRead + outcome.usage.cacheCreation;
      }
    }
    cacheShares.push(usage.read / usage.prompt);
  }),
);
const seconds = (performance.now() - started) / 1000;
const mainBusy = performance.eventLoopUtilization(elu).utilization;
const rssAfter = process.memoryUsage().rss;
const turns = CHATS * TURNS_PER_CHAT;

console.log(`bench:turn — ${turns} turns over ${CHATS} concurrent chats (${TURNS_PER_CHAT} turns each), 50 skills, memory store`);
console.log(`turns/s (${CHATS} chats at once)       ${(turns / seconds).toFixed(0)}`);
console.log(`main thread busy during that run    ${(mainBusy * 100).toFixed(0)}% (the fake model runs in a worker thread)`);
console.log(`core overhead per turn p50      ${percentile(overheads, 50).toFixed(2)} ms (${SOLO} turns, one at a time; submit → outcome, minus the model)`);
console.log(`core overhead per turn p99      ${percentile(overheads, 99).toFixed(2)} ms`);
console.log(`  of which the engine p50/p99   ${percentile(engineOverheads, 50).toFixed(2)} / ${percentile(engineOverheads, 99).toFixed(2)} ms (the rest: accept, lease, inbox, reply claim)`);
console.log(`turn-baseline p50               ${(percentile(wholeTurns, 50) / percentile(bareTurns, 50)).toFixed(2)}x (a whole turn ${percentile(wholeTurns, 50).toFixed(2)} ms vs the same request streamed by the bare SDK ${percentile(bareTurns, 50).toFixed(2)} ms, same fake model)`);
console.log(`store operations per plain turn ${operationsPerTurn.toFixed(1)} (each one round trip, a few for claims and inbox moves)`);
console.log(`  by operation (whole run)        ${operationsByKind.map(({ kind, count }) => `${kind} ${count}`).join(', ')}`);
console.log(`filesystem writes per plain turn ${(written / SOLO).toFixed(2)} (${written} files or folders created or changed in ${SOLO} turns; the workspace is on)`);
console.log(`RSS per active chat             ${((rssAfter - rssBefore) / CHATS / 1024).toFixed(1)} KiB (RSS ${mb(rssBefore)} → ${mb(rssAfter)} MiB)`);
console.log(`cache-read share, turns 2-10    ${(percentile(cacheShares, 50) * 100).toFixed(1)}% (median chat), ${(Math.min(...cacheShares) * 100).toFixed(1)}% (worst chat)`);

await app.close();
worker.postMessage('close');
await rm(dir, { recursive: true, force: true });
