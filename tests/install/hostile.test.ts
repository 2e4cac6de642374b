// The install scanner against hostile fixtures of our own, served by a loopback git server: each trick is a
// finding naming its file and line (or the install is refused), nothing fetched ever runs, and a world with
// `installPolicy: block` installs none of them.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { friendlyCollection, HOSTILE, makeZip, skillMd } from './fixtures.ts';

let git: FakeGitServer;
let app: App;
let dir: string;
const WORLD = 'terminal:local';
const BLOCKING = 'slack:T1:CBLOCK';
const marker = join(tmpdir(), `skillbot-install-ran-${randomBytes(4).toString('hex')}`);

beforeAll(async () => {
  git = await startFakeGitServer();
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-'));
  chmodSync(dir, 0o755);
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, `defaults:\n  installers: [UADMIN]\ninstall:\n  maxMB: 1\nworlds:\n  ${BLOCKING}:\n    installPolicy: block\n`);
  const config = loadConfig({
    STORE_URL: 'memory://',
    SKILLS_DIRS: join(dir, 'skills'),
    INSTALLED_SKILLS_DIR: join(dir, 'installed'),
    WORKSPACES_DIR: join(dir, 'workspaces'),
    INSTALL_GITHUB_URL: git.url,
    SKILLBOT_CONFIG: configFile,
    ANTHROPIC_API_KEY: 'unused',
  });
  app = await createApp(config, silentLogger(), { watchSkills: false });
  for (const hostile of HOSTILE) git.commit(`evil/${hostile.name}`, hostile.files);
  git.commit('acme/tools', friendlyCollection(marker));
});
afterAll(async () => {
  await app?.close();
  await git?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function planOf(source: string, world = WORLD) {
  const parsed = app.installer.parse(source);
  if (!parsed.ok) throw new Error(parsed.error);
  return app.installer.plan(parsed.source, { scope: world, policy: world === BLOCKING ? 'block' : 'warn' });
}

describe('the install scanner', () => {
  for (const hostile of HOSTILE) {
    it(`shows ${hostile.name} as ${hostile.code} at ${hostile.file}${hostile.line ? `:${hostile.line}` : ''}`, async () => {
      const planned = await planOf(`github:evil/${hostile.name}`);
      if (!planned.ok) throw new Error(planned.error);
      const finding = planned.plan.findings.find((f) => f.code === hostile.code);
      expect(finding, JSON.stringify(planned.plan.findings)).toMatchObject({ severity: 'danger', file: hostile.file, ...(hostile.line ? { line: hostile.line } : {}) });
      // The card carries it, with its place.
      expect(planned.plan.review.body).toContain(`${hostile.file}${hostile.line ? `:${hostile.line}` : ''}`);
      await planned.plan.discard();
    });
  }

  it('never writes a symlink: the staged skill lacks it, and its hash is of plain files only', async () => {
    const planned = await planOf('github:evil/symlink');
    if (!planned.ok) throw new Error(planned.error);
    expect(planned.plan.skills[0]?.files.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(existsSync(join(planned.plan.staged.dir, 'references/users.txt'))).toBe(false);
    await planned.plan.discard();
  });

  it('with installPolicy: block, none of them installs and no card is asked', async () => {
    for (const hostile of HOSTILE) {
      const result = await app.installer.install({ worldId: BLOCKING, chatId: `${BLOCKING}/1`, requesterId: 'UADMIN', source: `github:evil/${hostile.name}` });
      expect(result.ok).toBe(false);
      expect(result.text).toMatch(/blocks installs with scanner findings|invalid/);
    }
    expect(app.installed.list()).toEqual([]);
  });

  it('refuses a repository over the download bound, keeping nothing', async () => {
    git.commit('evil/huge', { 'SKILL.md': skillMd('huge', 'Very large.'), 'assets/blob.bin': { text: randomBytes(3 * 1024 * 1024) } });
    const planned = await planOf('github:evil/huge');
    expect(planned).toMatchObject({ ok: false, error: expect.stringMatching(/larger than the 1\.0 MiB/) });
  });

  it('refuses a zip bomb before unpacking it', async () => {
    const bomb = makeZip({ 'bomb/SKILL.md': skillMd('bomb', 'Boom.'), 'bomb/assets/zeros.bin': { zeros: 64 * 1024 * 1024 } });
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const result = await app.installer.install({ worldId: WORLD, chatId: `${WORLD}/2`, requesterId: 'UADMIN', source: '', file: { name: 'bomb.skill', bytes: bomb } });
    expect(result).toMatchObject({ ok: false, text: expect.stringMatching(/over the 10\.0 MiB a file may be|zip bomb/) });
  });

  it('reads a clean collection: both skills, every script with its interpreter, what runs unasked, and nothing ran', async () => {
    const planned = await planOf('github:acme/tools');
    if (!planned.ok) throw new Error(planned.error);
    const { plan } = planned;
    expect(plan.skills.map((s) => s.id)).toEqual(['csv-peek', 'greeter']);
    expect(plan.findings.filter((f) => f.severity === 'danger')).toEqual([]);
    expect(plan.review.body).toMatch(/at commit [0-9a-f]{40}/);
    expect(plan.review.body).toContain('scripts/peek.sh (sh)');
    expect(plan.review.body).toContain('scripts/hello.py (python3)');
    expect(plan.review.body).toContain('run-on-load: scripts/hello.py');
    await plan.discard();
    expect(existsSync(marker)).toBe(false);
  });

  it('is quiet about what people do see or what is not installed: comments in code blocks, HTML assets, files outside the skills', async () => {
    git.commit('acme/benign', {
      '.github/PULL_REQUEST_TEMPLATE.md': '<!-- Describe the change you made, in a few words -->\n',
      'skills/docs/SKILL.md': skillMd('docs', 'Writes documents.', 'Example:\n\n```xml\n<!-- Use these entities for professional typography -->\n<w:p/>\n```\n'),
      'skills/docs/assets/viewer.html': '<div id="tabs" style="display:none;"><!-- tabs shown when data exists --></div>\n<span style="font-size:0.8rem">x</span>\n',
    });
    const planned = await planOf('github:acme/benign');
    if (!planned.ok) throw new Error(planned.error);
    expect(planned.plan.findings.filter((f) => f.severity === 'danger')).toEqual([]);
    await planned.plan.discard();
  });

  it('reads source forms as documented and refuses others with what was wrong', () => {
    expect(app.installer.parse('github:acme/tools/skills/pdf@v1.2')).toMatchObject({ ok: true, source: { url: `${git.url}/acme/tools.git`, ref: 'v1.2', path: 'skills/pdf' } });
    expect(app.installer.parse('https://git.example.com/team/skills.git#main:skills/x')).toMatchObject({ ok: true, source: { url: 'https://git.example.com/team/skills.git', ref: 'main', path: 'skills/x' } });
    expect(app.installer.parse('github:acme/tools/../../etc')).toMatchObject({ ok: false, error: expect.stringContaining('no "..")') });
    expect(app.installer.parse('ftp://x/y')).toMatchObject({ ok: false });
    expect(app.installer.parse('https://u:p@host/r.git')).toMatchObject({ ok: false, error: expect.stringContaining('password') });
  });
});

describe('where installs land, and the operator policy', () => {
  it('a skill installed for one world is not usable in another; one installed into defaults is everywhere', async () => {
    const parsed = app.installer.parse('github:acme/tools/skills/csv-peek');
    if (!parsed.ok) throw new Error(parsed.error);
    const planned = await app.installer.plan(parsed.source, { scope: 'slack:T1:CHERE', policy: 'warn' });
    if (!planned.ok) throw new Error(planned.error);
    const committed = await app.installer.commit(planned.plan, { scope: 'slack:T1:CHERE', requestedBy: 'U1', approvedBy: 'UADMIN' });
    await planned.plan.discard();
    expect(committed).toMatchObject({ ok: true, ids: ['csv-peek'] });
    expect(app.engine.invocableSkills('slack:T1:CHERE').map((s) => s.id)).toContain('csv-peek');
    expect(app.engine.invocableSkills('slack:T1:CELSEWHERE').map((s) => s.id)).not.toContain('csv-peek');
    // The same name cannot be taken for another world: the card says whose it is.
    const again = await app.installer.plan(parsed.source, { scope: 'slack:T1:COTHER', policy: 'warn' });
    if (!again.ok) throw new Error(again.error);
    expect(again.plan.findings.find((f) => f.code === 'SHADOWS')?.message).toContain('installed for slack:T1:CHERE');
    await again.plan.discard();
  });

  it("refuses to start on an INSTALLED_SKILLS_DIR holding files it did not write (it would empty it)", async () => {
    const mistaken = mkdtempSync(join(tmpdir(), 'skillbot-install-mistake-'));
    writeFileSync(join(mistaken, 'SKILL.md'), skillMd('precious', 'Someone else\'s skill.'));
    try {
      const config = loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: join(dir, 'skills'), INSTALLED_SKILLS_DIR: mistaken, WORKSPACES_DIR: join(dir, 'workspaces'), ANTHROPIC_API_KEY: 'unused' });
      await expect(createApp(config, silentLogger(), { watchSkills: false })).rejects.toThrow(/INSTALLED_SKILLS_DIR .* holds files the bot did not write/);
      expect(existsSync(join(mistaken, 'SKILL.md'))).toBe(true);
    } finally {
      rmSync(mistaken, { recursive: true, force: true });
    }
  });

  it('a policy command that answers deny (or fails) refuses the install; it runs in the sandbox, reading the staged folder', async () => {
    const policyDir = mkdtempSync(join(tmpdir(), 'skillbot-install-policy-'));
    chmodSync(policyDir, 0o755);
    const configFile = join(policyDir, 'config.yaml');
    const policy = 'f() { if grep -rqs curl "$1"; then echo "deny: it mentions curl"; else echo allow; fi; }; f';
    writeFileSync(configFile, `install:\n  policyCommand: ${JSON.stringify(policy)}\n`);
    const guarded = await createApp(
      loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: join(policyDir, 'skills'), INSTALLED_SKILLS_DIR: join(policyDir, 'installed'), WORKSPACES_DIR: join(policyDir, 'ws'), INSTALL_GITHUB_URL: git.url, SKILLBOT_CONFIG: configFile, ANTHROPIC_API_KEY: 'unused' }),
      silentLogger(),
      { watchSkills: false },
    );
    try {
      const plan = async (source: string) => {
        const parsed = guarded.installer.parse(source);
        if (!parsed.ok) throw new Error(parsed.error);
        const planned = await guarded.installer.plan(parsed.source, { scope: WORLD, policy: 'warn' });
        if (!planned.ok) throw new Error(planned.error);
        await planned.plan.discard();
        return planned.plan;
      };
      expect((await plan('github:evil/curl-prereq')).refused).toBe('the install policy denied it: it mentions curl');
      expect((await plan('github:acme/tools')).refused).toBeUndefined();
    } finally {
      await guarded.close();
      rmSync(policyDir, { recursive: true, force: true });
    }
  });
});
