// Installing by ref: a branch, a lightweight tag, an annotated tag (as releases are) and a full commit id each
// install, pin the commit they name and update as they should (a tag follows where it points now; a commit id
// stays). The operator's command, run in this process, against a git server of our own.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { runInstallCli } from '../../src/install/installCli.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { skillMd } from './fixtures.ts';

let git: FakeGitServer;
let dir: string;
let first: string;
let second: string;
let next: string;

const release = (n: number) => ({ 'SKILL.md': skillMd('notes', `Release notes, edition ${n}.`, `Edition ${n}.`) });

beforeAll(async () => {
  git = await startFakeGitServer();
  first = git.commit('acme/notes', release(1));
  git.tag('acme/notes', 'v1');
  git.tag('acme/notes', 'v1.0.0', { annotated: true });
  next = git.commit('acme/notes', release(3), { branch: 'next' });
  second = git.commit('acme/notes', release(2), { branch: 'main' });
  dir = mkdtempSync(join(tmpdir(), 'skillbot-install-refs-'));
  chmodSync(dir, 0o755);
});
afterAll(async () => {
  await git?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The operator's `skillbot skills …` with its own store, in this process; what it printed. */
async function skills(world: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const config = loadConfig({
    STORE_URL: `sqlite://${join(dir, `${world}.sqlite`)}`,
    SKILLS_DIRS: join(dir, 'skills'),
    INSTALLED_SKILLS_DIR: join(dir, `${world}-installed`),
    INSTALL_GITHUB_URL: git.url,
    WORKSPACES_DIR: join(dir, 'workspaces'),
  });
  const out: string[] = [];
  const err: string[] = [];
  const [sub = '', ...rest] = args;
  const code = await runInstallCli(sub, rest, config, { output: { out: (text) => out.push(text), err: (text) => err.push(text) }, interactive: false });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The commit `skills installed` says notes is pinned to. */
async function pinned(world: string): Promise<{ commit?: string }> {
  const listed = await skills(world, 'installed');
  const commit = /^notes\t\S+\t\S+\tcommit ([0-9a-f]{40})\t/m.exec(listed.out)?.[1];
  return commit === undefined ? {} : { commit };
}

describe('installing by ref', () => {
  it.each([
    ['a lightweight tag', 'github:acme/notes@v1', () => first, 'edition 1.'],
    ['an annotated tag', 'github:acme/notes@v1.0.0', () => first, 'edition 1.'],
    ['a branch', 'github:acme/notes@next', () => next, 'edition 3.'],
    ['a full commit id', () => `github:acme/notes@${first}`, () => first, 'edition 1.'],
    ['the default branch', 'github:acme/notes', () => second, 'edition 2.'],
  ] as const)('%s installs, pinned to the commit it names', async (what, source, commit, body) => {
    const world = what.replace(/\W+/g, '-');
    const installed = await skills(world, 'install', typeof source === 'function' ? source() : source, '--yes');
    expect(installed.err).toBe('');
    expect(installed.out).toContain(body);
    expect(installed.out).toContain('Installed notes into defaults.');
    const pin = await pinned(world);
    expect(pin.commit).toBe(commit());
    // A skill at the top of the repository: its folder on the bot is ours, so no name mismatch is shown.
    expect(installed.out).not.toContain('differs from its folder');
  }, 60_000);

  it('the same https URL with #tag installs the annotated tag too', async () => {
    const installed = await skills('https-tag', 'install', `${git.url}/acme/notes.git#v1.0.0`, '--yes');
    expect(installed.out).toContain('Installed notes into defaults.');
    expect((await pinned('https-tag')).commit).toBe(first);
  }, 60_000);

  it('a ref that is not there names what is: the branches and tags, and that a commit id is written in full', async () => {
    const missing = await skills('missing', 'install', 'github:acme/notes@v9', '--yes');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no branch or tag named "v9" there: its branches are main, next; its tags v1, v1.0.0');
    const short = await skills('missing', 'install', `github:acme/notes@${first.slice(0, 10)}`, '--yes');
    expect(short.err).toContain('(a commit id must be written in full, 40 hex digits)');
    const unknown = await skills('missing', 'install', `github:acme/notes@${'0123456789'.repeat(4)}`, '--yes');
    expect(unknown.err).toContain(`the repository holds no commit ${'0123456789'.repeat(4)}`);
  }, 60_000);

  it('update of a tag follows the tag as it points now; of a commit id, stays where it is', async () => {
    await skills('follow', 'install', 'github:acme/notes@v1.0.0', '--yes');
    await skills('stay', 'install', `github:acme/notes@${first}`, '--yes');
    // The release is moved to a newer commit (a re-tag, as a hotfix release does).
    const third = git.commit('acme/notes', release(4));
    git.tag('acme/notes', 'v1.0.0', { annotated: true });
    const followed = await skills('follow', 'update', 'notes', '--yes');
    expect(followed.err).toBe('');
    expect(followed.out).toContain('edition 4.');
    expect(followed.out).toContain('Updated notes into defaults.');
    expect((await pinned('follow')).commit).toBe(third);
    const stayed = await skills('stay', 'update', 'notes', '--yes');
    expect(stayed.out).toContain('edition 1.');
    expect((await pinned('stay')).commit).toBe(first);
  }, 90_000);
});
