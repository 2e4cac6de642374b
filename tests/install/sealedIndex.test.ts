// N9: the installed-skills index is sealed with the state key. A write to Redis by someone without the key (a
// skill that reaches the store, a neighbour on its network) widening a skill to every channel is not served by
// any instance, running or starting, and is on the audit trail; the next install writes a sealed index again.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../src/approvals/index.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { until } from '../until.ts';
import { friendlyCollection, installFor } from './fixtures.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) throw new Error('CI=true needs REDIS_URL: the sealed-index test must run, not skip.');

describe.runIf(process.env.REDIS_URL)('the installed-skills index in a shared store (N9)', () => {
  // A database of its own (slack.test.ts uses 11, bench:install 8).
  const url = () => {
    const parsed = new URL(process.env.REDIS_URL ?? '');
    parsed.pathname = '/14';
    return parsed.toString();
  };
  let git: FakeGitServer;
  let store: Store;
  let dir: string;
  const apps: App[] = [];

  async function instance(): Promise<App> {
    const home = mkdtempSync(join(dir, 'app-'));
    chmodSync(home, 0o755);
    const app = await createApp(
      loadConfig({ STORE_URL: url(), SKILLS_DIRS: join(home, 'skills'), INSTALLED_SKILLS_DIR: join(home, 'installed'), WORKSPACES_DIR: join(home, 'ws'), INSTALL_GITHUB_URL: git.url, SKILLBOT_CONFIG: join(dir, 'config.yaml'), SKILLBOT_STATE_KEY: 'sealed-index-test-key-0123456789abcdef', ANTHROPIC_API_KEY: 'unused' }),
      silentLogger(),
      { watchSkills: false },
    );
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    git = await startFakeGitServer();
    git.commit('acme/tools', friendlyCollection(join(tmpdir(), 'never-written')));
    dir = mkdtempSync(join(tmpdir(), 'skillbot-sealed-index-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.yaml'), 'defaults:\n  installers: [UADMIN]\n');
    store = await createStore(url());
    await store.delete('installs', 'index');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await store?.delete('installs', 'index');
    await store?.close();
    await git?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a forged index (a skill widened to every channel) is served by no instance, and is audited', async () => {
    const a = await instance();
    await installFor(a, 'github:acme/tools/skills/csv-peek', 'slack:T1:CHERE');
    expect(a.engine.invocableSkills('slack:T1:CHERE').map((s) => s.id)).toContain('csv-peek');

    // Someone with Redis but not the key: the same record, for every channel, under the next revision.
    const stored = (await store.get<{ status: string; skills: Array<Record<string, unknown>> }>('installs', 'index')) ?? { status: '0', skills: [] };
    const forged = { status: String(Number(stored.status) + 1), skills: stored.skills.map((skill) => ({ ...skill, scope: 'defaults' })) };
    await store.set('installs', 'index', forged);
    await a.installed.sync();
    const b = await instance();

    for (const app of [a, b]) expect(app.engine.invocableSkills('slack:T1:CELSEWHERE').map((s) => s.id)).not.toContain('csv-peek');
    expect(b.installed.list()).toEqual([]);
    // The running instance keeps what it served before.
    expect(a.engine.invocableSkills('slack:T1:CHERE').map((s) => s.id)).toContain('csv-peek');
    const audited = (await createAuditLog(store).list()).filter((entry) => entry.kind === 'integrity' && entry.skillId === 'installs-index');
    expect(audited[0]?.reason).toMatch(new RegExp(`revision ${forged.status} has no valid MAC under the state key`));

    // The next install writes a sealed index: nothing of the forged one carried over.
    await installFor(a, 'github:acme/tools/skills/greeter', 'slack:T1:CTWO');
    await until(() => b.installed.list().some((skill) => skill.id === 'greeter') || undefined, 'the other instance to serve the sealed index');
    expect(b.installed.list().map((skill) => [skill.id, skill.scope])).toEqual([['greeter', 'slack:T1:CTWO']]);
  });

  it('an older sealed index put back (a rollback) is ignored by an instance that served a newer one', async () => {
    const a = apps[0] as App;
    const before = await store.get<{ status: string }>('installs', 'index');
    await installFor(a, 'github:acme/tools/skills/csv-peek', 'slack:T1:CTWO');
    await store.set('installs', 'index', before);
    await a.installed.sync();
    expect(a.installed.list().map((skill) => skill.id).sort()).toEqual(['csv-peek', 'greeter']);
  });
});
