// N1: nothing fetched outgrows its bound before a bound sees it. A hostile git server of our own serves an
// 8 KB pack whose one delta builds hundreds of MiB (or lies about what it builds): the install is refused
// naming the bound, before isomorphic-git builds anything, and the bot's memory stays where it was. Fetches
// are also few: two at a time on an instance, and a few per person per hour, counted in the store.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { bombPack, type HostileGitServer, startHostileGitServer } from '../fakes/hostileGitServer.ts';

const servers: HostileGitServer[] = [];
const apps: App[] = [];
let dir: string;

async function appFor(url: string): Promise<App> {
  const home = mkdtempSync(join(dir, 'app-'));
  chmodSync(home, 0o755);
  const configFile = join(home, 'config.yaml');
  writeFileSync(configFile, 'defaults:\n  installers: [UADMIN]\n');
  const app = await createApp(
    loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: join(home, 'skills'), INSTALLED_SKILLS_DIR: join(home, 'installed'), WORKSPACES_DIR: join(home, 'ws'), INSTALL_GITHUB_URL: url, SKILLBOT_CONFIG: configFile, ANTHROPIC_API_KEY: 'unused' }),
    silentLogger(),
    { watchSkills: false },
  );
  apps.push(app);
  return app;
}

async function serve(bomb: Parameters<typeof bombPack>[0]): Promise<{ app: App; server: HostileGitServer; size: number }> {
  const made = bombPack(bomb);
  const server = await startHostileGitServer(made);
  servers.push(server);
  return { app: await appFor(server.url), server, size: made.pack.length };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillbot-fetch-bounds-'));
  chmodSync(dir, 0o755);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  for (const server of servers) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a hostile pack (N1)', () => {
  it('a tiny pack whose one delta builds 768 MiB is refused before anything is built, and memory stays put', async () => {
    const { app, server, size } = await serve({ builds: 768 * 1024 * 1024 });
    expect(size).toBeLessThan(16 * 1024);
    const before = process.memoryUsage().rss;
    const result = await app.installer.install({ worldId: 'terminal:local', chatId: 'terminal:local/1', requesterId: 'UADMIN', source: 'github:evil/bomb' });
    const grew = process.memoryUsage().rss - before;
    expect(server.packsServed()).toBe(1);
    expect(result).toMatchObject({ ok: false, text: expect.stringMatching(/a delta that builds 768\.0 MiB, over the 50\.0 MiB one object may be/) });
    expect(grew).toBeLessThan(128 * 1024 * 1024);
  });

  it('a delta that declares 1 KiB and builds 256 MiB is refused as malformed, not built to find out', async () => {
    const { app } = await serve({ builds: 256 * 1024 * 1024, declares: 1024 });
    const before = process.memoryUsage().rss;
    const result = await app.installer.install({ worldId: 'terminal:local', chatId: 'terminal:local/1', requesterId: 'UADMIN', source: 'github:evil/liar' });
    expect(result).toMatchObject({ ok: false, text: expect.stringContaining('a malformed delta (what it builds is not what it declares)') });
    expect(process.memoryUsage().rss - before).toBeLessThan(128 * 1024 * 1024);
  });
});

describe('how often one person may make the bot fetch', () => {
  it('a few fetches per person per hour: the next is refused with when to try again, and another person is not held up', async () => {
    const { app, server } = await serve({ builds: 1024 * 1024 });
    const ask = (requesterId: string) => app.installer.install({ worldId: 'slack:T1:C1', chatId: 'slack:T1:C1/1', requesterId, source: 'github:evil/small' });
    for (let i = 0; i < 5; i += 1) expect((await ask('UMALLORY')).text).not.toMatch(/fetches per hour/);
    const served = server.packsServed();
    const sixth = await ask('UMALLORY');
    expect(sixth).toMatchObject({ ok: false, privately: true, text: expect.stringMatching(/You have asked for 5 fetches in the last hour.*in \d+ min/) });
    expect(server.packsServed()).toBe(served);
    expect((await ask('UBOB')).text).not.toMatch(/fetches per hour/);
    expect(server.packsServed()).toBe(served + 1);
  });
});
