import { mkdir, stat, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderScanner } from '../../src/skills/folderScanner.ts';
import { loadSkill } from '../../src/skills/loadSkill.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { codes, indexOne, tempDir, writeFiles, writeSkill } from './helpers.ts';

let tmp: { path: string; cleanup: () => Promise<void> };
let root: string;
beforeEach(async () => {
  tmp = await tempDir();
  root = join(tmp.path, 'skills');
  await mkdir(root);
});
afterEach(async () => {
  await tmp.cleanup();
});

async function open(roots: string[] = [root]) {
  const registry = await SkillRegistry.open({ roots, watch: false });
  return registry.current();
}

describe('discovery', () => {
  it('finds skill folders at a bounded depth, skipping .git and node_modules', async () => {
    await writeSkill(root, 'top');
    await writeSkill(join(root, 'group'), 'grouped');
    await writeSkill(join(root, 'a', 'b'), 'deep');
    await writeSkill(join(root, 'a', 'b', 'c'), 'too-deep');
    await writeSkill(join(root, '.git'), 'in-git');
    await writeSkill(join(root, 'node_modules'), 'in-modules');
    const snapshot = await open();
    expect(snapshot.list().map((s) => s.id)).toEqual(['deep', 'grouped', 'top']);
  });

  it('does not look for skills inside a skill folder', async () => {
    await writeSkill(root, 'outer', undefined, undefined, { 'references/inner/SKILL.md': '---\nname: inner\ndescription: x\n---\n' });
    expect((await open()).list().map((s) => s.id)).toEqual(['outer']);
  });

  it('survives symlink loops in roots and in skill folders', async () => {
    await writeSkill(root, 'looped');
    await symlink(root, join(root, 'loop'));
    await symlink('.', join(root, 'looped', 'references-loop'));
    await symlink(join(root, 'missing'), join(root, 'dangling'));
    const snapshot = await open();
    expect(snapshot.list().map((s) => s.id)).toEqual(['looped']);
    expect(snapshot.get('looped')?.warnings.map((w) => w.code)).toEqual(['SYMLINK_IGNORED']);
  });

  it('lets an earlier root win a name clash and reports the shadowed skill', async () => {
    const second = join(tmp.path, 'second');
    await writeSkill(root, 'shared', 'name: shared\ndescription: From the first root.');
    await writeSkill(second, 'shared', 'name: shared\ndescription: From the second root.');
    await writeSkill(second, 'only-second');
    const snapshot = await open([root, second]);
    expect(snapshot.get('shared')?.description).toBe('From the first root.');
    expect(snapshot.get('only-second')).toBeDefined();
    expect(snapshot.shadowed).toEqual([
      { id: 'shared', folder: join(second, 'shared'), root: second, winner: join(root, 'shared') },
    ]);
    const swapped = await open([second, root]);
    expect(swapped.get('shared')?.description).toBe('From the second root.');
  });

  it('keeps loading the other skills when one is bad, and reports it', async () => {
    await writeSkill(root, 'good');
    await writeFiles(root, { 'bad/SKILL.md': '---\nname: [\n---\n' });
    await writeFiles(root, { 'no-frontmatter/SKILL.md': 'just text' });
    const snapshot = await open();
    expect(snapshot.list().map((s) => s.id)).toEqual(['good']);
    expect(snapshot.invalid.map((i) => [i.id, i.errors[0]?.code])).toEqual([
      ['bad', 'FRONTMATTER_YAML'],
      ['no-frontmatter', 'FRONTMATTER_MISSING'],
    ]);
  });

  it('reports a missing root without failing', async () => {
    const registry = await SkillRegistry.open({ roots: [join(tmp.path, 'nope'), root], watch: false });
    expect(registry.unreadableRoots).toEqual([join(tmp.path, 'nope')]);
  });
});

describe('hostile folders', () => {
  it('refuses a skill over the size bound, naming its size and the bound', async () => {
    const dir = await writeSkill(root, 'huge', undefined, 'See assets/big.bin.');
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'assets', 'big.bin'), '');
    await truncate(join(dir, 'assets', 'big.bin'), 512 * 1024 * 1024);
    const entry = await indexOne(dir);
    expect(entry?.skill).toBeUndefined();
    expect(entry?.invalid?.errors.map((e) => e.code)).toEqual(['SKILL_TOO_LARGE']);
    expect(entry?.invalid?.errors[0]?.message).toMatch(/512\.0 MiB .*over the 64\.0 MiB a skill may hold/);
  });

  it('refuses a huge or binary SKILL.md', async () => {
    await writeFiles(root, { 'big/SKILL.md': `---\nname: big\ndescription: x\n---\n${'a'.repeat(2 * 1024 * 1024)}` });
    await writeFiles(root, { 'binary/SKILL.md': Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0xff, 0xfe]) });
    expect(codes(await indexOne(join(root, 'big'))).errors).toEqual(['SKILL_MD_TOO_LARGE']);
    expect(codes(await indexOne(join(root, 'binary'))).errors).toEqual(['SKILL_MD_BINARY']);
    const snapshot = await open();
    expect(loadSkill(snapshot, 'binary')).toMatch(/status="error" code="SKILL_MD_BINARY"/);
  });

  it('never blocks on a FIFO in a skill folder', async () => {
    const dir = await writeSkill(root, 'fifo', undefined, 'Read references/pipe.');
    await mkdir(join(dir, 'references'));
    execFileSync('mkfifo', [join(dir, 'references', 'pipe')]);
    const entry = await indexOne(dir);
    expect(entry?.skill?.id).toBe('fifo');
    expect(entry?.skill?.resources).toEqual([]);
  });

  it('refuses a skill with too many files, since its hash would be partial', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2001; i += 1) files[`assets/f${i}.txt`] = '';
    const dir = await writeSkill(root, 'crowded', undefined, undefined, files);
    expect(codes(await indexOne(dir)).errors).toEqual(['SKILL_TOO_MANY_FILES']);
  });

  it('refuses a hook that a symlink points outside the folder', async () => {
    const dir = await writeSkill(root, 'hooked', 'name: hooked\ndescription: x\nhooks:\n  pre_execute: hooks/run.sh');
    await writeFile(join(tmp.path, 'outside.sh'), 'echo hi');
    await mkdir(join(dir, 'hooks'));
    await symlink(join(tmp.path, 'outside.sh'), join(dir, 'hooks', 'run.sh'));
    expect(codes(await indexOne(dir)).errors).toEqual(['SYMLINK_OUTSIDE', 'HOOK_OUTSIDE']);
  });

  it('refuses a skill holding any symlink that leads out, relative or absolute, named in the error', async () => {
    const dir = await writeSkill(root, 'leaky');
    await writeFile(join(tmp.path, 'secret.env'), 'TOKEN=x');
    await symlink('../../secret.env', join(dir, 'notes.txt'));
    const entry = await indexOne(dir);
    expect(entry?.skill).toBeUndefined();
    expect(entry?.invalid?.errors.map((e) => e.code)).toEqual(['SYMLINK_OUTSIDE']);
    expect(entry?.invalid?.errors[0]?.message).toContain('leaky/notes.txt: symlink leads outside the skill folder (to "../../secret.env")');

    // Absolute, even to a file of the folder itself: inside the sandbox the folder sits elsewhere.
    const pinned = await writeSkill(root, 'pinned', undefined, undefined, { 'a.txt': 'a' });
    await symlink(join(pinned, 'a.txt'), join(pinned, 'b.txt'));
    expect(codes(await indexOne(pinned)).errors).toEqual(['SYMLINK_OUTSIDE']);
  });
});

describe('skill entries', () => {
  it('lists only the scripts the body names, and only those that exist', async () => {
    const body = 'Run `scripts/report.sh` then ./scripts/sub/fmt.py. Never scripts/missing.sh.';
    const dir = await writeSkill(root, 'named', undefined, body, {
      'scripts/report.sh': 'echo',
      'scripts/report.sh.bak': 'old',
      'scripts/sub/fmt.py': 'print()',
      'scripts/unnamed.sh': 'echo',
    });
    expect((await indexOne(dir))?.skill?.scripts).toEqual(['scripts/report.sh', 'scripts/sub/fmt.py']);
  });

  it('inlines only small linked prose, whole, and lists the rest by size', async () => {
    const body = 'Read references/guide.md, references/big.md, references/page.html and assets/notes.md and assets/logo.png.';
    const dir = await writeSkill(root, 'refs', undefined, body, {
      'references/guide.md': '# Guide\nBe brief.',
      'references/big.md': 'é'.repeat(40 * 1024),
      'references/page.html': '<p>viewer</p>',
      'references/unnamed.md': 'not named',
      'assets/notes.md': '# Template notes',
      'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
    });
    const resources = (await indexOne(dir))?.skill?.resources ?? [];
    expect(resources.map((r) => r.path)).toEqual(['assets/logo.png', 'assets/notes.md', 'references/big.md', 'references/guide.md', 'references/page.html', 'references/unnamed.md']);
    const inlined = resources.filter((r) => r.text !== undefined);
    expect(inlined).toEqual([{ path: 'references/guide.md', size: 17, text: '# Guide\nBe brief.' }]);
  });

  it('has a content hash over the whole folder that changes when a script is edited', async () => {
    const dir = await writeSkill(root, 'hashed', undefined, 'Run scripts/a.sh.', { 'scripts/a.sh': 'echo 1', 'assets/x.txt': 'x' });
    const first = (await indexOne(dir))?.skill?.hash;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect((await indexOne(dir))?.skill?.hash).toBe(first);
    await writeFile(join(dir, 'scripts', 'a.sh'), 'echo 2');
    const second = (await indexOne(dir))?.skill?.hash;
    expect(second).not.toBe(first);
    await writeFile(join(dir, 'assets', 'new.txt'), '');
    expect((await indexOne(dir))?.skill?.hash).not.toBe(second);
  });

  it('hashes hidden folders (.git too) and big files by their whole content', async () => {
    const dir = await writeSkill(root, 'covered', undefined, 'Run scripts/a.sh.', {
      'scripts/a.sh': 'echo 1',
      '.git/config': '[core]\n',
      '.hidden/helper.py': 'print(1)',
    });
    const big = join(dir, 'assets', 'big.bin');
    await mkdir(join(dir, 'assets'));
    await writeFile(big, Buffer.alloc(9 * 1024 * 1024, 0x61));
    const hashes = [(await indexOne(dir))?.skill?.hash];
    const edits: Array<[string, string | Buffer]> = [
      ['.git/config', '[core]\n\thooksPath = evil\n'],
      ['.hidden/helper.py', 'print(2)'],
    ];
    for (const [path, text] of edits) {
      await writeFile(join(dir, path), text);
      hashes.push((await indexOne(dir))?.skill?.hash);
    }
    // Same size, same mtime, one byte changed in the middle of a 9 MiB file.
    const { mtime } = await stat(big);
    const bytes = Buffer.alloc(9 * 1024 * 1024, 0x61);
    bytes[5 * 1024 * 1024] = 0x62;
    await writeFile(big, bytes);
    await utimes(big, mtime, mtime);
    hashes.push((await indexOne(dir))?.skill?.hash);
    expect(hashes.every((hash) => typeof hash === 'string')).toBe(true);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('hashes any folder by the same algorithm, for the executor to check a copy against', async () => {
    const dir = await writeSkill(root, 'copied', undefined, 'Run scripts/a.sh.', { 'scripts/a.sh': 'echo 1', '.meta/x': 'x' });
    await symlink('scripts/a.sh', join(dir, 'run'));
    const copy = join(tmp.path, 'copy');
    execFileSync('cp', ['-a', dir, copy]);
    const scanner = new FolderScanner();
    try {
      const expected = (await indexOne(dir))?.skill?.hash;
      expect(await scanner.hashFolder(copy)).toEqual({ hash: expected });
      await writeFile(join(copy, 'scripts', 'a.sh'), 'echo 2');
      expect(await scanner.hashFolder(copy)).not.toEqual({ hash: expected });
      await symlink('/etc/passwd', join(copy, 'passwd'));
      expect(await scanner.hashFolder(copy)).toEqual({ error: expect.stringContaining('passwd: symlink leads outside the skill folder') });
      expect(await scanner.hashFolder(join(tmp.path, 'nope'))).toEqual({ error: expect.stringContaining('cannot read the folder (ENOENT)') });
    } finally {
      await scanner.close();
    }
  });

  it('holds id, description, root, folder, frontmatter and body, frozen', async () => {
    const dir = await writeSkill(root, 'entry', 'name: entry\ndescription: An entry.\nmetadata:\n  k: v', '# Body\n');
    const snapshot = await open();
    const skill = snapshot.get('entry');
    expect(skill).toMatchObject({ id: 'entry', description: 'An entry.', root, folder: dir, frontmatter: { metadata: { k: 'v' } }, body: '# Body\n' });
    expect(Object.isFrozen(skill)).toBe(true);
    expect(Object.isFrozen(skill?.frontmatter['metadata'])).toBe(true);
  });
});

describe('the scan worker', () => {
  it('starts again after close, and answers null for a folder that is not a skill', async () => {
    const dir = await writeSkill(root, 'again');
    const scanner = new FolderScanner();
    try {
      const [first] = await scanner.scan([{ root, rootIndex: 0, folder: dir }]);
      await scanner.close();
      const [second, gone] = await scanner.scan([
        { root, rootIndex: 0, folder: dir },
        { root, rootIndex: 0, folder: join(root, 'nope') },
      ]);
      expect(second?.hash).toBe(first?.hash);
      expect(gone).toBeNull();
    } finally {
      await scanner.close();
    }
  });
});
