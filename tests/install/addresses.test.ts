// The private-address guard on git sources: a URL typed in a chat whose host is (or resolves to) loopback, a private,
// CGNAT or link-local range, or one of the host's own addresses is refused before any connection, naming the host
// and the address; the operator's `install.egressAllow` lets a listed one through; a redirect is never followed.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { friendlyCollection } from './fixtures.ts';

let git: FakeGitServer;
let redirector: Server;
let redirectUrl: string;
/** A service on loopback that answers anything with its own internal text. */
let chatty: Server;
let chattyPort: number;
let dir: string;
const apps: App[] = [];

async function appWith(install: string): Promise<App> {
  const home = mkdtempSync(join(dir, 'app-'));
  chmodSync(home, 0o755);
  const configFile = join(home, 'config.yaml');
  writeFileSync(configFile, `defaults:\n  installers: [UADMIN]\n${install}`);
  const app = await createApp(
    loadConfig({
      STORE_URL: 'memory://',
      SKILLS_DIRS: join(home, 'skills'),
      INSTALLED_SKILLS_DIR: join(home, 'installed'),
      WORKSPACES_DIR: join(home, 'workspaces'),
      // Not the loopback server: `github:` sources would reach the host the operator named wherever it resolves.
      INSTALL_GITHUB_URL: 'https://github.invalid',
      SKILLBOT_CONFIG: configFile,
      ANTHROPIC_API_KEY: 'unused',
    }),
    silentLogger(),
    { watchSkills: false },
  );
  apps.push(app);
  return app;
}

/** An app whose INSTALL_GITHUB_URL is `url` (a loopback server the operator named). */
async function appWithGithub(url: string): Promise<App> {
  const home = mkdtempSync(join(dir, 'app-'));
  chmodSync(home, 0o755);
  const configFile = join(home, 'config.yaml');
  writeFileSync(configFile, 'defaults:\n  installers: [UADMIN]\n');
  const app = await createApp(
    loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: join(home, 'skills'), INSTALLED_SKILLS_DIR: join(home, 'installed'), WORKSPACES_DIR: join(home, 'workspaces'), INSTALL_GITHUB_URL: url, SKILLBOT_CONFIG: configFile, ANTHROPIC_API_KEY: 'unused' }),
    silentLogger(),
    { watchSkills: false },
  );
  apps.push(app);
  return app;
}

async function planError(app: App, source: string): Promise<string> {
  const parsed = app.installer.parse(source);
  if (!parsed.ok) throw new Error(parsed.error);
  const planned = await app.installer.plan(parsed.source, { scope: 'terminal:local', policy: 'warn' });
  if (planned.ok) {
    await planned.plan.discard();
    return '';
  }
  return planned.error;
}

beforeAll(async () => {
  git = await startFakeGitServer();
  git.commit('acme/tools', friendlyCollection(join(tmpdir(), 'never-written')));
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-addresses-'));
  chmodSync(dir, 0o755);
  redirector = createServer((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/acme/tools.git/info/refs' }).end());
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/acme/tools.git`;
  chatty = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('INTERNAL-ONLY: admin token abc123\n'));
  await new Promise<void>((resolve) => chatty.listen(0, '127.0.0.1', resolve));
  chattyPort = (chatty.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await new Promise<void>((resolve) => redirector?.close(() => resolve()));
  await new Promise<void>((resolve) => chatty?.close(() => resolve()));
  await git?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('git sources on private addresses', () => {
  it('refuses a loopback URL typed in a chat, naming the address and the setting, without connecting', async () => {
    const app = await appWith('');
    const before = git.requests();
    const error = await planError(app, `${git.url}/acme/tools.git`);
    expect(error).toContain("127.0.0.1 is not a public address (127.0.0.1 is the host's loopback)");
    expect(error).toContain('install.egressAllow');
    const port = new URL(git.url).port;
    expect(await planError(app, `http://localhost:${port}/acme/tools.git`)).toMatch(/^localhost \((127\.0\.0\.1|::1)\) is not a public address/);
    expect(git.requests()).toBe(before);
  });

  const own = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((entry) => !entry.internal && entry.family === 'IPv4')?.address;
  const ranges: Array<[string, string]> = [
    ['10.1.2.3', 'private or reserved'],
    ['192.168.7.7', 'private or reserved'],
    ['172.20.0.1', 'private or reserved'],
    ['100.64.0.1', 'private or reserved'],
    ['169.254.169.254', 'private or reserved'],
    ['[::1]', 'loopback'],
    ['[fe80::1]', 'private or reserved'],
    ...(own === undefined ? [] : ([[own, "the host's own"]] as Array<[string, string]>)),
  ];
  it.each(ranges)('refuses https://%s/… (%s)', async (host, why) => {
    const app = apps[0] ?? (await appWith(''));
    const error = await planError(app, `https://${host}/acme/tools.git`);
    expect(error).toContain(`${host.replace(/^\[|\]$/g, '')} is not a public address`);
    expect(error).toContain(why);
  });

  it("fetches from an address the operator lists in install.egressAllow, and never follows a redirect (to a private address or any)", async () => {
    const app = await appWith('install:\n  egressAllow: [127.0.0.1]\n');
    const parsed = app.installer.parse(`${git.url}/acme/tools.git`);
    if (!parsed.ok) throw new Error(parsed.error);
    const planned = await app.installer.plan(parsed.source, { scope: 'terminal:local', policy: 'warn' });
    if (!planned.ok) throw new Error(planned.error);
    expect(planned.plan.skills.map((skill) => skill.id)).toEqual(['csv-peek', 'greeter']);
    await planned.plan.discard();
    // Refused, and where it points (the server's bytes) is not repeated.
    const redirected = await planError(app, redirectUrl);
    expect(redirected).toContain('the server answered a redirect (302), which the bot does not follow');
    expect(redirected).not.toContain('169.254');
    // Listed by range only: another private range stays refused.
    expect(await planError(app, 'https://10.9.9.9/acme/tools.git')).toContain('10.9.9.9 is not a public address');
  });

  it("trusts INSTALL_GITHUB_URL's origin (scheme, host and port), not its host: another port on that host is refused (N12)", async () => {
    const app = await appWithGithub(git.url);
    const port = Number(new URL(git.url).port);
    const planned = await planError(app, 'github:acme/tools');
    expect(planned).toBe('');
    const before = git.requests();
    expect(await planError(app, `http://127.0.0.1:${chattyPort}/acme/tools.git`)).toContain('127.0.0.1 is not a public address');
    expect(await planError(app, `https://127.0.0.1:${port}/acme/tools.git`)).toContain('127.0.0.1 is not a public address');
    expect(git.requests()).toBe(before);
  });

  it("never quotes what a server answered in a refusal (N12)", async () => {
    const app = await appWithGithub(`http://127.0.0.1:${chattyPort}`);
    const error = await planError(app, 'github:acme/tools');
    expect(error).toMatch(/the server's answer is not a git repository the bot can read/);
    expect(error).not.toContain('INTERNAL-ONLY');
  });

  it('refuses an install.egressAllow entry that is neither a range nor a host name, at start', () => {
    const configFile = join(dir, 'bad.yaml');
    writeFileSync(configFile, 'install:\n  egressAllow: ["not a host!"]\n');
    expect(() => loadConfig({ STORE_URL: 'memory://', SKILLBOT_CONFIG: configFile })).toThrow(/not a host!/);
  });
});
