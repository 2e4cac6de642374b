// What a crash mid-install leaves beside INSTALLED_SKILLS_DIR (`.staging`, `.incoming`) is swept when the bot starts,
// but only when older than an install can last: an install still under review on another instance sharing the
// folder keeps its fetched tree, and its yes still installs.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { friendlyCollection } from './fixtures.ts';

let git: FakeGitServer;
let dir: string;
const apps: App[] = [];

beforeAll(async () => {
  git = await startFakeGitServer();
  git.commit('acme/tools', friendlyCollection(join(tmpdir(), 'never-written')));
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-leftovers-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'config.yaml'), 'defaults:\n  installers: [UADMIN]\n');
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await git?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An instance on the shared INSTALLED_SKILLS_DIR, with its own store and workspaces (as on another host). */
async function instance(name: string): Promise<App> {
  const app = await createApp(
    loadConfig({
      STORE_URL: 'memory://',
      SKILLS_DIRS: join(dir, name, 'skills'),
      INSTALLED_SKILLS_DIR: join(dir, 'installed'),
      WORKSPACES_DIR: join(dir, name, 'workspaces'),
      INSTALL_GITHUB_URL: git.url,
      SKILLBOT_CONFIG: join(dir, 'config.yaml'),
      APPROVAL_TIMEOUT_MS: '600000',
      ANTHROPIC_API_KEY: 'unused',
    }),
    silentLogger(),
    { watchSkills: false },
  );
  apps.push(app);
  return app;
}

function leftover(path: string, ageMs: number): void {
  mkdirSync(join(path, 'skills', 'x'), { recursive: true });
  writeFileSync(join(path, 'skills', 'x', 'SKILL.md'), '---\nname: x\ndescription: left behind\n---\n');
  const then = new Date(Date.now() - ageMs);
  utimesSync(path, then, then);
}

describe('leftovers of interrupted installs', () => {
  it('a start removes staged and half-written folders older than an install can last, and keeps younger ones', async () => {
    const staging = join(dir, 'installed.staging');
    const incoming = join(dir, 'installed.incoming');
    const hour = 60 * 60 * 1000;
    leftover(join(staging, 'stage-1-dead'), 2 * hour);
    leftover(join(staging, 'stage-1-dead.git'), 2 * hour);
    leftover(join(incoming, 'greeter-dead'), 2 * hour);
    // Younger than the fetch bound (60 s) + the longest card wait (10 min) + a minute: maybe another instance's.
    leftover(join(staging, 'stage-2-recent'), 5 * 60 * 1000);
    await instance('a');
    expect(existsSync(join(staging, 'stage-1-dead'))).toBe(false);
    expect(existsSync(join(staging, 'stage-1-dead.git'))).toBe(false);
    expect(existsSync(join(incoming, 'greeter-dead'))).toBe(false);
    expect(existsSync(join(staging, 'stage-2-recent'))).toBe(true);
  });

  it("another instance starting on the same folder leaves an install under review alone: its yes installs the reviewed bytes", async () => {
    const a = apps[0] ?? (await instance('a'));
    const parsed = a.installer.parse('github:acme/tools');
    if (!parsed.ok) throw new Error(parsed.error);
    const planned = await a.installer.plan(parsed.source, { scope: 'defaults', policy: 'warn' });
    if (!planned.ok) throw new Error(planned.error);
    const { plan } = planned;
    // The card has been waiting a while (within its timeout) when the other instance starts.
    const then = new Date(Date.now() - 5 * 60 * 1000);
    utimesSync(plan.staged.dir, then, then);
    await instance('b');
    expect(existsSync(plan.staged.dir)).toBe(true);
    const committed = await a.installer.commit(plan, { scope: 'defaults', requestedBy: 'UADMIN', approvedBy: 'UADMIN' });
    await plan.discard();
    expect(committed).toMatchObject({ ok: true, ids: ['csv-peek', 'greeter'] });
  });
});
