// npm run bench:install-attack — issue 35's N1 through the product's own wiring: a hostile git server of ours
// serves an 8 KB pack whose one delta builds 1 GiB, and four people ask `/skills install` of it at once (plus a
// fifth ask by one of them). Meanwhile another chat's turn runs against a zero-latency fake model in another
// thread. Prints the pack's size, each install's answer and time, the bot's RSS before and at its peak (sampled
// every 10 ms), and the other chat's turn time.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createApp } from '../src/app.ts';
import type { IncomingMessage, TurnSink } from '../src/platform/port.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/ops/log.ts';
import { bombPack, startHostileGitServer } from '../tests/fakes/hostileGitServer.ts';

const GIB = 1024 * 1024 * 1024;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const dir = await mkdtemp(join(tmpdir(), 'skillbot-bench-attack-'));
await chmod(dir, 0o755);
const made = bombPack({ builds: GIB });
const server = await startHostileGitServer(made);
const worker = new Worker(new URL('./fakeWorker.mjs', import.meta.url), { workerData: { reply: 'ok, done.' } });
const { url } = await new Promise<{ url: string }>((resolve) => worker.once('message', resolve));
await writeFile(join(dir, 'config.yaml'), 'defaults:\n  installers: [UADMIN]\n');
const config = loadConfig({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: url, SKILLS_DIRS: join(dir, 'skills'), STORE_URL: 'memory://', WORKSPACES_DIR: join(dir, 'ws'), INSTALLED_SKILLS_DIR: join(dir, 'installed'), INSTALL_GITHUB_URL: server.url, SKILLBOT_CONFIG: join(dir, 'config.yaml') });
const app = await createApp(config, silentLogger(), { watchSkills: false });
const sink: TurnSink = { progress() {}, async reply() {} };
app.dispatcher.addPort('terminal', { sinkFor: () => sink });
app.dispatcher.start();
const turn = async (chat: string): Promise<number> => {
  const started = performance.now();
  const message: IncomingMessage = { worldId: 'terminal:local', chatId: `terminal:local/${chat}`, userId: 'U', text: 'hello' };
  await app.dispatcher.submit(message);
  return performance.now() - started;
};

try {
  await turn('warm-up');
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = performance.now();
  const people = ['UA', 'UB', 'UC', 'UD', 'UA'];
  const attacks = people.map(async (person, i) => {
    const result = await app.installer.install({ worldId: 'slack:T1:C1', chatId: `slack:T1:C1/${i}`, requesterId: person, source: `github:evil/bomb${i}` });
    return { person, ms: performance.now() - started, text: result.text.split('\n')[0] ?? '' };
  });
  const other = await turn('bystander');
  const answers = await Promise.all(attacks);
  clearInterval(sampler);
  console.log(`pack served: ${made.pack.length} bytes, its one delta builds ${mb(GIB)} MiB; upload-pack requests answered: ${server.packsServed()}`);
  for (const answer of answers) console.log(`install by ${answer.person}: ${answer.ms.toFixed(0)} ms: ${answer.text}`);
  console.log(`RSS before: ${mb(baseline)} MiB, peak during the attack: ${mb(peak)} MiB (+${mb(peak - baseline)} MiB; bound +512 MiB)`);
  console.log(`another chat's turn during the attack: ${other.toFixed(0)} ms (bound 5000 ms)`);
} finally {
  await app.close();
  await server.close();
  await worker.terminate();
  await rm(dir, { recursive: true, force: true });
}
