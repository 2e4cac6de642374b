// Overhead of the sandboxed run (bwrap with its sized tmpfs mounts and read-only root, prlimit, the wrapper that
// reports full mounts, a private copy of the skill) over a bare spawn of the same tiny script, of the unsandboxed
// guarded run (SCRIPT_SANDBOX=off) for comparison, and of a networked sandboxed run (the egress proxy and the
// bridge inside, which starts the bot's node) reported beside them; then credentials (execCredentials.ts): a
// networked run with them beside one without, and an HTTPS request terminated by the proxy beside a plain tunnel.
// Run: npm run bench:exec   (node --import tsx bench/exec.ts [runs])
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createExecutor } from '../src/exec/executor.ts';
import { describeBoundsMode } from '../src/exec/runCgroup.ts';
import { credentialFigures } from './execCredentials.ts';
import { silentLogger } from '../src/ops/log.ts';

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

interface Row {
  label: string;
  p50: number;
  p99: number;
}

/**
 * Times each variant `runs` times, interleaved (one of each per round), so load from other work on a shared
 * machine weighs on every variant alike instead of on whichever ran during a busy spell.
 */
async function timeInterleaved(variants: { label: string; once: () => Promise<void> }[]): Promise<Row[]> {
  for (let i = 0; i < warmup; i += 1) for (const variant of variants) await variant.once();
  const samples = variants.map(() => [] as number[]);
  for (let i = 0; i < runs; i += 1) {
    for (const [index, variant] of variants.entries()) {
      const start = performance.now();
      await variant.once();
      samples[index]?.push(performance.now() - start);
    }
  }
  return variants.map((variant, index) => {
    const sorted = (samples[index] ?? []).sort((a, b) => a - b);
    return { label: variant.label, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  });
}

const root = await mkdtemp(path.join(os.tmpdir(), 'skillbot-bench-exec-'));
try {
  const skillDir = path.join(root, 'skill');
  await mkdir(path.join(skillDir, 'scripts'), { recursive: true });
  const script = path.join(skillDir, 'scripts', 'hello.sh');
  await writeFile(script, '#!/bin/bash\necho hello\n');
  await chmod(script, 0o755);

  const sandboxed = createExecutor({ timeoutMs: 30_000, logger: silentLogger() });
  const status = await sandboxed.sandbox();
  if (!status.usable) throw new Error(`the sandbox is unusable here: ${status.problem}`);
  const unsandboxed = createExecutor({ timeoutMs: 30_000, logger: silentLogger(), sandbox: 'off' });
  // The same sandbox without a cgroup per run: what the cgroup (made, joined through the gate, removed) costs.
  const rlimitsOnly = createExecutor({ timeoutMs: 30_000, logger: silentLogger(), cgroups: 'off' });
  const [bare, off, guarded, rlimits, networked] = (await timeInterleaved([
    { label: 'bare spawn (bash hello.sh)', once: () => bareRun('/bin/bash', [script], skillDir) },
    {
      label: 'executor.run, sandbox off',
      once: async () => {
        const result = await unsandboxed.run({ skillDir, script: 'scripts/hello.sh' });
        if (result.status !== 'ok') throw new Error(`unsandboxed run ${result.status}: ${result.reason}`);
      },
    },
    {
      label: 'executor.run, bwrap sandbox',
      once: async () => {
        const result = await sandboxed.run({ skillDir, script: 'scripts/hello.sh' });
        if (result.status !== 'ok') throw new Error(`sandboxed run ${result.status}: ${result.reason}`);
      },
    },
    {
      label: 'executor.run, bwrap, rlimits',
      once: async () => {
        const result = await rlimitsOnly.run({ skillDir, script: 'scripts/hello.sh' });
        if (result.status !== 'ok') throw new Error(`sandboxed run ${result.status}: ${result.reason}`);
      },
    },
    {
      label: 'executor.run, networked',
      once: async () => {
        const result = await sandboxed.run({ skillDir, script: 'scripts/hello.sh', network: true });
        if (result.status !== 'ok') throw new Error(`networked run ${result.status}: ${result.reason}`);
      },
    },
  ])) as [Row, Row, Row, Row, Row];

  console.log(`exec bench: ${runs} runs each, interleaved, after ${warmup} warm-up, ${os.cpus().length} CPUs, node ${process.version}`);
  if (status.mode === 'bwrap') console.log(`  ${describeBoundsMode(status.bounds)}`);
  for (const row of [bare, off, guarded, rlimits, networked]) {
    console.log(`  ${row.label.padEnd(30)} p50 ${row.p50.toFixed(2).padStart(7)} ms   p99 ${row.p99.toFixed(2).padStart(7)} ms`);
  }
  const overhead = guarded.p50 - bare.p50;
  console.log(`  overhead                       p50 ${overhead.toFixed(2).padStart(7)} ms   p99 ${(guarded.p99 - bare.p99).toFixed(2).padStart(7)} ms`);
  console.log(`  cgroup per run adds             p50 ${(guarded.p50 - rlimits.p50).toFixed(2).padStart(7)} ms`);
  console.log(`  networked overhead             p50 ${(networked.p50 - bare.p50).toFixed(2).padStart(7)} ms   p99 ${(networked.p99 - bare.p99).toFixed(2).padStart(7)} ms`);
  console.log(`  target: at most 15 ms sandboxed overhead at p50 -> ${overhead <= 15 ? 'met' : 'NOT met'}`);
  for (const line of await credentialFigures(root, skillDir, timeInterleaved)) console.log(line);
} finally {
  await rm(root, { recursive: true, force: true });
}
