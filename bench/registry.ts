// npm run bench:registry — generates 10,000 skills in a temp dir and prints the registry's figures:
// cold index time, one-skill reload time, load_skill p50/p99, catalog size for 100 / 1,000 / 10,000 skills.
// Targets (2 cores): cold index ≤ 1.5 s, one-skill reload ≤ 50 ms, load_skill p99 ≤ 2 ms.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { renderCatalog } from '../src/skills/catalog.ts';
import { loadSkill } from '../src/skills/loadSkill.ts';
import { SkillRegistry } from '../src/skills/registry.ts';
import type { Skill, SkillSnapshot } from '../src/skills/types.ts';

const SKILLS = Number(process.env.BENCH_SKILLS ?? 10_000);
const DEBOUNCE_MS = 20;
const WORDS = 'report deploy review summarise invoice ticket release chart budget audit draft triage'.split(' ');

function skillName(i: number): string {
  return `${WORDS[i % WORDS.length]}-${WORDS[(i * 7) % WORDS.length]}-${i}`;
}

async function writeSkill(root: string, i: number): Promise<void> {
  const name = skillName(i);
  const dir = join(root, name);
  await mkdir(join(dir, 'scripts'), { recursive: true });
  await mkdir(join(dir, 'references'), { recursive: true });
  const description =
    `${WORDS[i % WORDS.length]} helper number ${i}: builds a short ${WORDS[(i * 3) % WORDS.length]} from the thread, ` +
    `with a summary table. Use when someone asks for a ${WORDS[(i * 5) % WORDS.length]}.`;
  const skillMd = [
    '---',
    `name: ${name}`,
    `description: ${JSON.stringify(description)}`,
    'license: MIT',
    'metadata:',
    '  author: bench',
    '  version: "1.0"',
    '---',
    `# ${name}`,
    '',
    'Run `scripts/run.sh` with the channel name, then format its output following `references/guide.md`.',
    'Keep the answer under ten lines and say which data you used.',
    '',
  ].join('\n');
  await writeFile(join(dir, 'SKILL.md'), skillMd);
  await writeFile(join(dir, 'scripts', 'run.sh'), `#!/bin/sh\necho "skill ${i}: $*"\n`, { mode: 0o755 });
  await writeFile(join(dir, 'references', 'guide.md'), `# Guide ${i}\n\n${'Write short lines. '.repeat(50)}\n`);
}

async function generate(root: string, count: number): Promise<void> {
  const batch = 200;
  for (let start = 0; start < count; start += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, k) => writeSkill(root, start + k)));
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const ms = (value: number): string => `${value.toFixed(value < 10 ? 3 : 1)} ms`;

async function coldIndex(root: string): Promise<{ ms: number; cpuMs: number; snapshot: SkillSnapshot }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const registry = await SkillRegistry.open({ roots: [root], watch: false });
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const snapshot = registry.current();
  await registry.close();
  return { ms: elapsed, cpuMs: (used.user + used.system) / 1000, snapshot };
}

async function reloadTimes(root: string, edits: number): Promise<number[]> {
  const registry = await SkillRegistry.open({ roots: [root], watch: true, debounceMs: DEBOUNCE_MS });
  const times: number[] = [];
  // Watchers never keep a process alive; this bench has nothing else that would.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    for (let k = 0; k < edits; k += 1) {
      const i = (k * 997) % SKILLS;
      const before = registry.current();
      const changed = new Promise<void>((resolve) => {
        const off = registry.onChange(() => {
          off();
          resolve();
        });
      });
      const started = performance.now();
      await writeFile(join(root, skillName(i), 'scripts', 'run.sh'), `#!/bin/sh\necho "edit ${k}"\n`);
      await changed;
      const elapsed = performance.now() - started - DEBOUNCE_MS;
      if (registry.current().get(skillName(i))?.hash === before.get(skillName(i))?.hash) throw new Error('hash did not change');
      times.push(elapsed);
    }
  } finally {
    clearInterval(keepAlive);
    await registry.close();
  }
  return times.sort((a, b) => a - b);
}

function loadTimes(snapshot: SkillSnapshot, calls: number): number[] {
  const ids = snapshot.list().map((skill) => skill.id);
  const times: number[] = [];
  for (let k = 0; k < calls; k += 1) {
    const id = k % 20 === 19 ? `missing-${k}` : (ids[(k * 7919) % ids.length] ?? '');
    const started = performance.now();
    loadSkill(snapshot, id);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

function catalogLine(skills: readonly Skill[], count: number): string {
  const some = skills.slice(0, count);
  const raw = some.reduce((sum, skill) => sum + skill.id.length + skill.description.length, 0);
  const full = renderCatalog(some, { budgetChars: Number.POSITIVE_INFINITY });
  const budgeted = renderCatalog(some);
  const overhead = ((full.text.length - raw) / raw) * 100;
  return (
    `  ${String(count).padStart(6)} skills: ${full.text.length} bytes unbudgeted (raw ids+descriptions ${raw}, +${overhead.toFixed(1)}%); ` +
    `with the default budget ${budgeted.text.length} bytes, ${budgeted.shortened.length} shortened, ${budgeted.dropped.length} dropped`
  );
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'skillbot-bench-'));
  try {
    const genStarted = performance.now();
    await generate(root, SKILLS);
    const load = loadavg().map((value) => value.toFixed(1)).join(' ');
    console.log(`registry bench: ${SKILLS} skills generated in ${ms(performance.now() - genStarted)} (${cpus().length} CPUs, load ${load}, Node ${process.version})`);

    const runs: number[] = [];
    const cpuRuns: number[] = [];
    let snapshot: SkillSnapshot | undefined;
    for (let run = 0; run < 3; run += 1) {
      const result = await coldIndex(root);
      runs.push(result.ms);
      cpuRuns.push(result.cpuMs);
      snapshot = result.snapshot;
    }
    if (!snapshot || snapshot.list().length !== SKILLS) {
      throw new Error(`indexed ${snapshot?.list().length} skills, expected ${SKILLS}: ${snapshot?.invalid[0]?.errors[0]?.message}`);
    }
    console.log(`cold index:            ${runs.map(ms).join(', ')} (first run is the cold one; target ≤ 1500 ms)`);
    console.log(`  CPU time (all threads): ${cpuRuns.map(ms).join(', ')}`);

    const reloads = await reloadTimes(root, 20);
    console.log(
      `one-skill reload:      p50 ${ms(percentile(reloads, 50))}, max ${ms(reloads[reloads.length - 1] ?? Number.NaN)} ` +
        `(edit to new snapshot, minus the ${DEBOUNCE_MS} ms debounce; target ≤ 50 ms)`,
    );

    loadTimes(snapshot, 2000);
    const loads = loadTimes(snapshot, 20_000);
    console.log(`load_skill:            p50 ${ms(percentile(loads, 50))}, p99 ${ms(percentile(loads, 99))} (5% unknown ids; target p99 ≤ 2 ms)`);

    console.log('catalog:');
    for (const count of [100, 1000, 10_000]) console.log(catalogLine(snapshot.list(), count));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
