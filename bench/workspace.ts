// The chat workspace's costs: (1) a shell command (Claude's bash tool) over a sandboxed skill script run, both in
// the chat's workspace with one loaded skill mounted, through the real executor with verified copies; (2) restoring
// a 10 MiB workspace on another instance from Redis (round trips and bytes beside the times); (3) the workspace
// guard's CPU during a run in a 10,000-entry workspace.
// Run: npm run bench:workspace   (REDIS_URL=redis://127.0.0.1:6379 for the restore part; [runs])
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createExecutor } from '../src/exec/executor.ts';
import { silentLogger } from '../src/ops/log.ts';
import { SkillRegistry } from '../src/skills/registry.ts';
import { createStore } from '../src/store/createStore.ts';
import { ChatWorkspaces } from '../src/workspace/chatWorkspaces.ts';
import { manifestSeal } from '../src/workspace/manifestSeal.ts';

const runs = Number(process.argv[2] ?? 100);
const warmup = 10;
const CHAT = 'terminal:local/bench-workspace';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

const root = await mkdtemp(path.join(os.tmpdir(), 'skillbot-bench-ws-'));
await chmod(root, 0o755);
try {
  // A skill like a public one: a script, a reference, and some bulk (schemas) that every run mounts.
  const skillDir = path.join(root, 'skills', 'doc-tools');
  await mkdir(path.join(skillDir, 'scripts'), { recursive: true });
  await mkdir(path.join(skillDir, 'schemas'), { recursive: true });
  await writeFile(path.join(skillDir, 'SKILL.md'), '---\nname: doc-tools\ndescription: Bench skill.\n---\nRun `scripts/noop.sh`.\n');
  await writeFile(path.join(skillDir, 'scripts', 'noop.sh'), '#!/bin/bash\ntrue\n');
  await chmod(path.join(skillDir, 'scripts', 'noop.sh'), 0o755);
  for (let i = 0; i < 40; i += 1) await writeFile(path.join(skillDir, 'schemas', `part${i}.xsd`), `<xsd>${'x'.repeat(20_000)}</xsd>\n`);
  const registry = await SkillRegistry.open({ roots: [path.join(root, 'skills')], watch: false });
  const skill = registry.current().get('doc-tools');
  if (skill === undefined) throw new Error('bench skill did not load');
  const executor = createExecutor({ timeoutMs: 30_000, hashFolder: (dir) => registry.hashFolder(dir), logger: silentLogger() });
  const status = await executor.sandbox();
  if (!status.usable) throw new Error(`the sandbox is unusable here: ${status.problem}`);
  const dir = path.join(root, 'workspace');
  await mkdir(dir);
  const owner = executor.workspaceOwner(CHAT);
  if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
  for (let i = 0; i < 50; i += 1) await writeFile(path.join(dir, `file${i}.txt`), `line ${i}\n`.repeat(100));
  const workspace = { dir, maxBytes: 512 * 1024 * 1024, maxFiles: 10_000 };
  const mounts = [{ id: skill.id, dir: skill.dir, expectedHash: skill.hash }];

  const script = () => executor.run({ skillDir: skill.dir, skillId: skill.id, script: 'scripts/noop.sh', expectedHash: skill.hash, skills: mounts, workspace, chatId: CHAT });
  const shell = () => executor.run({ shell: 'true', skills: mounts, workspace, chatId: CHAT });
  for (let i = 0; i < warmup; i += 1) {
    await script();
    await shell();
  }
  const times = { script: [] as number[], shell: [] as number[] };
  for (let i = 0; i < runs; i += 1) {
    for (const [label, once] of [['script', script], ['shell', shell]] as const) {
      const start = performance.now();
      const result = await once();
      if (result.status !== 'ok') throw new Error(`${label} run failed: ${result.reason ?? result.stderr}`);
      times[label].push(performance.now() - start);
    }
  }
  const sorted = { script: times.script.sort((a, b) => a - b), shell: times.shell.sort((a, b) => a - b) };
  console.log(`workspace: 50 files; loaded skill: ${skill.id} (41 files, ~0.8 MiB, verified once per content hash); ${runs} runs each, interleaved`);
  console.log(`  sandboxed script run   p50 ${ms(percentile(sorted.script, 50))}  p99 ${ms(percentile(sorted.script, 99))}`);
  console.log(`  shell command (bash)   p50 ${ms(percentile(sorted.shell, 50))}  p99 ${ms(percentile(sorted.shell, 99))}`);
  const overhead = percentile(sorted.shell, 50) - percentile(sorted.script, 50);
  console.log(`  shell over script at p50: ${overhead >= 0 ? '+' : ''}${ms(overhead)} (target <= +5 ms)`);
  // (3) The guard's cost in a full workspace: a run that writes nothing for 3 s, in 9,900 entries (the bound is 10,000) and in 50; the
  // bot's CPU over the run, as a share of one core (the difference is the guard walking the larger tree).
  const full = path.join(root, 'full');
  await mkdir(full);
  if (owner !== undefined) await chown(full, owner.uid, owner.gid);
  for (let d = 0; d < 100; d += 1) {
    await mkdir(path.join(full, `dir${d}`));
    await Promise.all(Array.from({ length: 98 }, (_, f) => writeFile(path.join(full, `dir${d}`, `file${f}.txt`), `line ${f}\n`)));
  }
  const guardShare = async (dir: string): Promise<number> => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const result = await executor.run({ shell: 'sleep 3', workspace: { dir, maxBytes: 512 * 1024 * 1024, maxFiles: 10_000 }, chatId: CHAT });
    if (result.status !== 'ok') throw new Error(`guard run failed: ${result.reason ?? result.stderr}`);
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000 / (performance.now() - wall);
  };
  const small = await guardShare(dir);
  const large = await guardShare(full);
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  console.log('guard while a run writes nothing for 3 s (the bot\'s CPU over the run, share of one core):');
  console.log(`  50 files: ${pct(small)}   9,900 entries: ${pct(large)}   the guard's extra for the full workspace: ${pct(large - small)} (target < 10%)`);
  executor.close();
  await registry.close();

  const redisUrl = process.env.REDIS_URL;
  if (redisUrl === undefined) {
    console.log('restore: skipped (set REDIS_URL=redis://127.0.0.1:6379 to measure a workspace moving between instances)');
  } else {
    const seal = manifestSeal(randomBytes(32));
    const store = await createStore(redisUrl, { keyPrefix: `bench-ws-${process.pid}-${Date.now()}:` });
    const settings = (folder: string) => ({ root: path.join(root, folder), maxBytes: 512 * 1024 * 1024, maxFiles: 10_000, ttlDays: 1 });
    const origin = new ChatWorkspaces({ settings: settings('origin'), store, owner: () => undefined, seal, logger: silentLogger() });
    const opened = await origin.open(CHAT);
    // 10 MiB as a chain leaves it: an unpacked document (many small parts) and a few larger binaries.
    await mkdir(path.join(opened.dir, 'unpacked', 'word', 'media'), { recursive: true });
    for (let i = 0; i < 200; i += 1) await writeFile(path.join(opened.dir, 'unpacked', 'word', `part${i}.xml`), `<p>${String(i).repeat(5000)}</p>`.slice(0, 10_000));
    for (let i = 0; i < 8; i += 1) await writeFile(path.join(opened.dir, 'unpacked', 'word', 'media', `image${i}.png`), Buffer.alloc(1_060_000, i));
    const pushStart = performance.now();
    const pushTrips = store.roundTrips;
    await origin.save(CHAT);
    const pushMs = performance.now() - pushStart;
    const pushed = store.roundTrips - pushTrips;
    const restoreTimes: number[] = [];
    let trips = 0;
    const restoreRuns = Math.min(runs, 20);
    for (let i = 0; i < restoreRuns; i += 1) {
      const other = new ChatWorkspaces({ settings: settings(`other${i}`), store, owner: () => undefined, seal, logger: silentLogger() });
      const before = store.roundTrips;
      const start = performance.now();
      await other.open(CHAT);
      restoreTimes.push(performance.now() - start);
      trips = store.roundTrips - before;
    }
    restoreTimes.sort((a, b) => a - b);
    console.log(`restore of a 10 MiB workspace (208 files) on another instance, ${restoreRuns} times:`);
    console.log(`  push once: ${ms(pushMs)}, ${pushed} store operations`);
    console.log(`  restore p50 ${ms(percentile(restoreTimes, 50))}  p99 ${ms(percentile(restoreTimes, 99))} (target p50 <= 100 ms); ${trips} store operations each`);
    await store.close();
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
