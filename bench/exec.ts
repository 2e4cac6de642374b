// Overhead of the guarded run over a bare spawn of the same tiny script.
// Run: npm run bench:exec   (node --import tsx bench/exec.ts [runs])
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createExecutor } from '../src/exec/executor.ts';
import { silentLogger } from '../src/log.ts';

const runs = Number(process.argv[2] ?? 200);
const warmup = 20;

function bareRun(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function time(label: string, once: () => Promise<void>): Promise<{ label: string; p50: number; p99: number }> {
  for (let i = 0; i < warmup; i += 1) await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { label, p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

const root = await mkdtemp(path.join(os.tmpdir(), 'skillbot-bench-exec-'));
try {
  const skillDir = path.join(root, 'skill');
  await mkdir(path.join(skillDir, 'scripts'), { recursive: true });
  const script = path.join(skillDir, 'scripts', 'hello.sh');
  await writeFile(script, '#!/bin/bash\necho hello\n');
  await chmod(script, 0o755);

  const executor = createExecutor({ timeoutMs: 30_000, logger: silentLogger() });
  const bare = await time('bare spawn (bash hello.sh)', () => bareRun('/bin/bash', [script], skillDir));
  const guarded = await time('guarded executor.run', async () => {
    const result = await executor.run({ skillDir, script: 'scripts/hello.sh' });
    if (result.status !== 'ok') throw new Error(`guarded run ${result.status}: ${result.reason}`);
  });

  console.log(`exec bench: ${runs} runs each after ${warmup} warm-up, ${os.cpus().length} CPUs, node ${process.version}`);
  for (const row of [bare, guarded]) {
    console.log(`  ${row.label.padEnd(30)} p50 ${row.p50.toFixed(2).padStart(7)} ms   p99 ${row.p99.toFixed(2).padStart(7)} ms`);
  }
  const overhead = guarded.p50 - bare.p50;
  console.log(`  overhead                       p50 ${overhead.toFixed(2).padStart(7)} ms   p99 ${(guarded.p99 - bare.p99).toFixed(2).padStart(7)} ms`);
  console.log(`  target: at most 30 ms overhead at p50 -> ${overhead <= 30 ? 'met' : 'NOT met'}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
