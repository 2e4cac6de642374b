// How fast the `skillbot` command starts: wall and CPU time of `--help`, `skills list` and `start` (up to the
// first 200 from /healthz, Slack against the loopback fake), beside `node -e 0`. Run: npm run bench:cli [runs]
// The CPU time is the machine-independent part worth watching: it counts what the command itself does.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startFakeAnthropic, textReply } from '../tests/fakes/anthropic.ts';
import { freePort } from '../tests/fakes/freePort.ts';
import { startFakeSlack } from '../tests/fakes/slack.ts';

const runs = Number(process.argv[2] ?? 10);
const BIN = fileURLToPath(new URL('../bin/skillbot.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** One run of a short command: bash's `times` reports its children's user and system CPU. */
function shortCommand(args: string[]): Sample {
  const quoted = args.map((arg) => `'${arg}'`).join(' ');
  const start = performance.now();
  const result = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1; times`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
  const wallMs = performance.now() - start;
  const children = result.stdout.toString().trim().split('\n')[1] ?? '';
  const [user, sys] = children.split(/\s+/).map((field) => {
    const match = /^(\d+)m([\d.]+)s$/.exec(field);
    return match ? Number(match[1]) * 60_000 + Number(match[2]) * 1000 : Number.NaN;
  });
  return { wallMs, cpuMs: (user ?? Number.NaN) + (sys ?? Number.NaN) };
}

/** CPU time the process has used so far (utime + stime from /proc), for a command that keeps running. */
async function cpuSoFar(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function startUntilHealthy(): Promise<Sample> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-bench-cli-'));
  const anthropic = await startFakeAnthropic({ brain: () => textReply('hi') });
  const slack = await startFakeSlack();
  const port = await freePort();
  const start = performance.now();
  const child = spawn(process.execPath, [BIN, 'start'], {
    cwd: dir,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      ANTHROPIC_API_KEY: 'bench',
      ANTHROPIC_BASE_URL: anthropic.url,
      SKILLS_DIRS: join(ROOT, 'skills'),
      STORE_URL: `sqlite://${join(dir, 'state.sqlite')}`,
      SLACK_BOT_TOKEN: slack.info.botToken,
      SLACK_SIGNING_SECRET: 'bench-secret',
      SLACK_API_URL: slack.apiUrl,
    },
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false);
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`skillbot start exited with ${child.exitCode}`);
      if (performance.now() - start > 30_000) throw new Error('skillbot start was not healthy within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const wallMs = performance.now() - start;
    return { wallMs, cpuMs: await cpuSoFar(child.pid ?? 0) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await Promise.all([anthropic.close(), slack.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

const built = spawnSync(process.execPath, [join(ROOT, 'bin', 'build.mjs')], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('bin/build.mjs failed');

const rows: Array<[string, Sample[]]> = [];
const measure = async (label: string, once: () => Sample | Promise<Sample>) => {
  await once(); // warm the OS file cache
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i += 1) samples.push(await once());
  rows.push([label, samples]);
};

await measure('node -e 0', () => shortCommand([process.execPath, '-e', '0']));
await measure('skillbot --help', () => shortCommand([process.execPath, BIN, '--help']));
await measure('skillbot skills list', () => shortCommand([process.execPath, BIN, 'skills', 'list']));
await measure('skillbot start → /healthz 200', startUntilHealthy);

console.log(`bench:cli, ${runs} runs each, median (built bundle in dist/, Node ${process.version})`);
for (const [label, samples] of rows) {
  const wall = median(samples.map((sample) => sample.wallMs));
  const cpu = median(samples.map((sample) => sample.cpuMs));
  console.log(`${label.padEnd(32)} wall ${wall.toFixed(0).padStart(5)} ms   cpu ${cpu.toFixed(0).padStart(5)} ms`);
}
console.log('target: skills list ≤ 300 ms of CPU');
