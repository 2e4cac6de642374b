// Installing skills: (1) the time to install a 50-skill collection from a loopback git server (fetch, scan,
// review, pin in the store), beside the host's own `git clone --depth 1` of the same repository as the floor;
// (2) the time from the install's commit until a second instance, sharing the store, serves all 50 (target ≤ 2 s).
// Run: REDIS_URL=redis://127.0.0.1:6379 npm run bench:install   ([rounds], default 3). Redis database 8.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type App, createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/ops/log.ts';
import { createStore } from '../src/store/createStore.ts';
import { indexSeal } from '../src/install/indexSeal.ts';
import { readIndex } from '../src/install/installRecords.ts';
import { startFakeGitServer, type RepoFile } from '../tests/fakes/gitServer.ts';

const STATE_KEY = 'bench-install-state-key-0123456789abcdef';

const rounds = Number(process.argv[2] ?? 3);
const SKILLS = 50;
const redis = process.env.REDIS_URL;
if (!redis) {
  console.error('bench:install needs REDIS_URL (two instances share it), e.g. REDIS_URL=redis://127.0.0.1:6379 npm run bench:install');
  process.exit(2);
}
const url = new URL(redis);
url.pathname = '/8';
const storeUrl = url.toString();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ms = (value: number) => `${value.toFixed(0)} ms`;

const git = await startFakeGitServer();
const dir = mkdtempSync(join(tmpdir(), 'skillbot-bench-install-'));
chmodSync(dir, 0o755);
const files: Record<string, RepoFile> = {};
for (let i = 0; i < SKILLS; i += 1) {
  const id = `tool-${String(i).padStart(2, '0')}`;
  files[`skills/${id}/SKILL.md`] = `---\nname: ${id}\ndescription: Bench skill number ${i}, which formats reports.\n---\n\n# ${id}\n\nRun \`scripts/run.sh\`; see [the guide](references/guide.md).\n`;
  files[`skills/${id}/scripts/run.sh`] = { text: `#!/bin/sh\necho ${id}\n`, executable: true };
  files[`skills/${id}/references/guide.md`] = `# Guide\n\n${'Some words about formatting reports. '.repeat(60)}\n`;
}
git.commit('bench/collection', files);

const envFor = (name: string) => ({
  STORE_URL: storeUrl,
  SKILLS_DIRS: join(dir, name, 'skills'),
  INSTALLED_SKILLS_DIR: join(dir, name, 'installed'),
  WORKSPACES_DIR: join(dir, name, 'ws'),
  INSTALL_GITHUB_URL: git.url,
  ANTHROPIC_API_KEY: 'unused',
  SKILLBOT_STATE_KEY: STATE_KEY,
});

const clones: number[] = [];
const installs: number[] = [];
const plans: number[] = [];
const spread: number[] = [];
const store = await createStore(storeUrl);
try {
  for (let round = 0; round < rounds; round += 1) {
    await store.delete('installs', 'index');
    const target = join(dir, `clone-${round}`);
    let start = performance.now();
    // Async: the git server answering it runs in this process.
    await promisify(execFile)('git', ['clone', '-q', '--depth', '1', `${git.url}/bench/collection.git`, target]);
    clones.push(performance.now() - start);

    const a: App = await createApp(loadConfig(envFor(`a${round}`)), silentLogger(), { watchSkills: false });
    const b: App = await createApp(loadConfig(envFor(`b${round}`)), silentLogger(), { watchSkills: false });
    try {
      const parsed = a.installer.parse('github:bench/collection');
      if (!parsed.ok) throw new Error(parsed.error);
      start = performance.now();
      const planned = await a.installer.plan(parsed.source, { scope: 'defaults', policy: 'warn' });
      if (!planned.ok) throw new Error(planned.error);
      plans.push(performance.now() - start);
      // When the pinned index lands in the store (what a second instance waits for), seen from outside.
      let indexedAt = Number.NaN;
      const watcher = (async () => {
        while (Number.isNaN(indexedAt)) {
          if ((await readIndex(store, indexSeal(Buffer.from(STATE_KEY)))).skills.length === SKILLS) indexedAt = performance.now();
          else await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      const committed = await a.installer.commit(planned.plan, { scope: 'defaults', requestedBy: 'bench', approvedBy: 'bench' });
      await planned.plan.discard();
      if (!committed.ok || committed.ids.length !== SKILLS) throw new Error(`install failed: ${JSON.stringify(committed)}`);
      installs.push(performance.now() - start);
      await watcher;
      while (b.registry.current().list().filter((skill) => skill.id.startsWith('tool-')).length < SKILLS) await new Promise((resolve) => setTimeout(resolve, 2));
      spread.push(performance.now() - indexedAt);
    } finally {
      await a.close();
      await b.close();
    }
  }
} finally {
  await store.delete('installs', 'index');
  await store.close();
  await git.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`bench:install: a ${SKILLS}-skill collection (${SKILLS * 3} files) over loopback git smart HTTP, ${rounds} round(s), median`);
console.log(`  host git clone --depth 1 (floor): ${ms(median(clones))}   [${clones.map(ms).join(', ')}]`);
console.log(`  install (fetch, scan, review, pin in Redis, load here): ${ms(median(installs))}   [${installs.map(ms).join(', ')}]  = ${(median(installs) / median(clones)).toFixed(1)}x the floor`);
console.log(`    of which fetch, scan and review: ${ms(median(plans))}   [${plans.map(ms).join(', ')}]`);
console.log(`  until a second instance serves all ${SKILLS}: ${ms(median(spread))}   [${spread.map(ms).join(', ')}]  (from the index landing in Redis; target ≤ 2000 ms)`);
