// `skillbot skills install|installed|remove` on the host: the real command as a process, the same review, the
// operator's yes (--yes, or refused when nobody can answer a prompt), and a bot on the same store serving the result.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';
import { friendlyCollection, makeZip, pluginWithHooks, skillMd } from './fixtures.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
let git: FakeGitServer;
let anthropic: FakeAnthropic;
let dir: string;
let env: Record<string, string>;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd: dir, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  git = await startFakeGitServer();
  anthropic = await startFakeAnthropic({ apiKeys: ['sk-ant-cli'] });
  git.commit('acme/tools', friendlyCollection(join(tmpdir(), 'never-written')));
  git.commit('acme/powers', pluginWithHooks(join(tmpdir(), 'never-written')));
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-cli-'));
  chmodSync(dir, 0o755);
  env = {
    STORE_URL: `sqlite://${join(dir, 'store.sqlite')}`,
    SKILLS_DIRS: join(dir, 'skills'),
    INSTALLED_SKILLS_DIR: join(dir, 'installed'),
    WORKSPACES_DIR: join(dir, 'workspaces'),
    INSTALL_GITHUB_URL: git.url,
    LOG_LEVEL: 'warn',
    ANTHROPIC_API_KEY: 'sk-ant-cli',
    ANTHROPIC_BASE_URL: anthropic.url,
  };
});
afterAll(async () => {
  await git?.close();
  await anthropic?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('skillbot skills install on the host', () => {
  it('shows the review and installs nothing without a yes when nobody can answer the prompt', async () => {
    const result = await run(['skills', 'install', 'github:acme/tools']);
    expect(result.stdout).toContain('Skill greeter');
    expect(result.stdout).toContain('Nothing installed: nobody can answer the prompt here (stdin is not a terminal). Pass --yes');
    expect(result.code).toBe(1);
  }, 60_000);

  it('installs with --yes into defaults; a bot on the same store serves it; installed lists it; remove takes it away', async () => {
    const installed = await run(['skills', 'install', 'github:acme/tools', '--yes']);
    expect(installed.stdout).toContain('Installed csv-peek, greeter into defaults.');
    expect(installed.code).toBe(0);
    const listed = await run(['skills', 'installed']);
    expect(listed.stdout).toMatch(/^greeter\tdefaults\tgithub:acme\/tools\tcommit [0-9a-f]{40}\tcontent [0-9a-f]{64}\tapproved by cli:/m);

    const app = await createApp(loadConfig({ ...env }), silentLogger(), { watchSkills: false });
    try {
      expect(app.engine.invocableSkills('slack:T1:C1').map((skill) => skill.id)).toEqual(expect.arrayContaining(['csv-peek', 'greeter']));
      const removed = await run(['skills', 'remove', 'greeter']);
      expect(removed.stderr).toBe('');
      expect(removed.stdout).toContain('Removed greeter from defaults.');
      await app.installed.sync();
      expect(app.engine.invocableSkills('slack:T1:C1').map((skill) => skill.id)).not.toContain('greeter');
    } finally {
      await app.close();
    }
    // --skill picks from the collection: only greeter (removed above), into one world.
    const picked = await run(['skills', 'install', 'github:acme/tools', '--skill', 'greeter', '--world', 'slack:T1:C2', '--yes']);
    expect(picked.stdout).toContain('Picked 1 of the 2 skills this source holds: greeter');
    expect(picked.stdout).not.toContain('Skill csv-peek');
    expect(picked.stdout).toContain('Installed greeter into slack:T1:C2.');
    const missing = await run(['skills', 'install', 'github:acme/tools', '--skill', 'nope', '--yes']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the source holds no skill named nope (it holds: csv-peek, greeter)');
    const bad = await run(['skills', 'install', 'ftp://nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a source I can install');
  }, 90_000);

  it("names a plugin's hooks, commands and agents as not carried, and a template in scripts/ as data: only its skill is installed", async () => {
    const shown = await run(['skills', 'install', 'github:acme/powers']);
    expect(shown.stdout).toContain("Not carried (the plugin's parts for Claude Code: skillbot installs only the skills, and never runs these):");
    expect(shown.stdout).toContain('hook SessionStart (startup) → "${CLAUDE_PLUGIN_ROOT}/hooks/session-start" (hooks/hooks.json)');
    expect(shown.stdout).toContain('slash commands: commands/ (1 file)');
    expect(shown.stdout).toContain('subagents: agents/ (1 file)');
    expect(shown.stdout).toContain('Skill debugging');
    expect(shown.stdout).toContain('scripts/bisect.sh (sh)');
    expect(shown.stdout).toContain('not programs, never run (no shebang, no known extension, not executable): scripts/page.html');
    expect(shown.stdout).not.toContain('scripts/page.html (cannot run');
    const installed = await run(['skills', 'install', 'github:acme/powers', '--world', 'slack:T1:C3', '--yes']);
    expect(installed.stdout).toContain('Installed debugging into slack:T1:C3.');
    // A plain skills folder has no plugin parts: the card says nothing of them.
    const plain = await run(['skills', 'install', 'github:acme/tools', '--skill', 'csv-peek']);
    expect(plain.stdout).not.toContain('Not carried');
  }, 90_000);

  it('installs a .skill file of this host (what skill-creator packages); list, show and doctor then include it', async () => {
    writeFileSync(join(dir, 'notes-maker.skill'), makeZip({ 'notes-maker/SKILL.md': skillMd('notes-maker', 'Turns a meeting transcript into notes.', 'Write the notes as bullets.') }));
    // Piped, no --yes: the review, then what to pass.
    const piped = await run(['skills', 'install', './notes-maker.skill']);
    expect(piped.stdout).toContain('Skill notes-maker');
    expect(piped.stdout).toContain('Nothing installed: nobody can answer the prompt here (stdin is not a terminal). Pass --yes to install exactly what the review above shows.');
    expect(piped.code).toBe(1);
    const missing = await run(['skills', 'install', './nowhere.skill', '--yes']);
    expect(missing.stderr).toContain(`${join(dir, 'nowhere.skill')}: no such file`);
    const installed = await run(['skills', 'install', './notes-maker.skill', '--yes']);
    expect(installed.stdout).toContain('Installed notes-maker into defaults.');

    const listed = await run(['skills', 'list']);
    expect(listed.stdout).toMatch(/^notes-maker +Turns a meeting transcript into notes\. +\[installed for every channel from notes-maker\.skill\]$/m);
    const shown = await run(['skills', 'show', 'notes-maker']);
    expect(shown.stdout).toContain('Write the notes as bullets.');
    expect(shown.stderr).toContain('notes-maker: installed for every channel from notes-maker.skill');
    mkdirSync(join(dir, 'skills'), { recursive: true });
    const doctor = await run(['doctor']);
    const skillsLine = doctor.stdout.split('\n').find((text) => text.slice(6).startsWith('skills:')) ?? '';
    expect(skillsLine).toMatch(/installed from the store \(.*notes-maker for every channel/);
    const sandboxLine = doctor.stdout.split('\n').find((text) => text.slice(6).startsWith('sandbox:')) ?? '';
    expect(sandboxLine).toContain("runs start in the chat's workspace (/workspace");
  }, 120_000);
});
