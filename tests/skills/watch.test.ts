import { spawnSync } from 'node:child_process';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillRegistry } from '../../src/skills/registry.ts';
import type { SkillSnapshot } from '../../src/skills/types.ts';
import { tempDir, writeSkill, skillMd } from './helpers.ts';

let tmp: { path: string; cleanup: () => Promise<void> };
let root: string;
let registry: SkillRegistry;

beforeEach(async () => {
  tmp = await tempDir();
  root = join(tmp.path, 'skills');
  await mkdir(root);
  await writeSkill(root, 'alpha', undefined, 'Run scripts/run.sh.', { 'scripts/run.sh': 'echo 1\n' });
  await writeSkill(join(root, 'team'), 'beta');
  registry = await SkillRegistry.open({ roots: [root], watch: true, debounceMs: 30 });
});
afterEach(async () => {
  await registry.close();
  await tmp.cleanup();
});

/** Resolves with the first snapshot for which `done` holds (file events may arrive in several reloads). */
function until(done: (snapshot: SkillSnapshot) => boolean): Promise<SkillSnapshot> {
  return new Promise((resolve) => {
    const off = registry.onChange((snapshot) => {
      if (!done(snapshot)) return;
      off();
      resolve(snapshot);
    });
  });
}

describe('watching', () => {
  it('builds a new snapshot when a script is edited, leaving the old one unchanged', async () => {
    const before = registry.current();
    const oldHash = before.get('alpha')?.hash;
    const changed = until((s) => s.get('alpha')?.hash !== oldHash);
    await writeFile(join(root, 'alpha', 'scripts', 'run.sh'), 'echo 2\n');
    const after = await changed;
    expect(after.version).toBeGreaterThan(before.version);
    expect(registry.current()).toBe(after);
    expect(before.get('alpha')?.hash).toBe(oldHash);
    expect(before.list().map((s) => s.id)).toEqual(['alpha', 'beta']);
  });

  it('keeps search in step with an edited description', async () => {
    expect(registry.current().search('beta')[0]?.id).toBe('beta');
    const edited = until((s) => s.get('beta')?.description === 'Plots tide tables.');
    await writeFile(join(root, 'team', 'beta', 'SKILL.md'), skillMd('name: beta\ndescription: Plots tide tables.'));
    const after = await edited;
    expect(after.search('tide tables')[0]?.id).toBe('beta');
    expect(after.search('beta')[0]?.description).toBe('Plots tide tables.');
    expect(after.search('alpha')[0]?.id).toBe('alpha');
  });

  it('picks up added, removed and broken skills, in groups too', async () => {
    const added = until((s) => s.get('gamma') !== undefined && s.get('delta') !== undefined);
    await writeSkill(root, 'gamma');
    await writeSkill(join(root, 'team'), 'delta');
    await added;

    const removed = until((s) => s.get('beta') === undefined);
    await rm(join(root, 'team', 'beta'), { recursive: true });
    await removed;

    const broken = until((s) => s.get('alpha') === undefined);
    await writeFile(join(root, 'alpha', 'SKILL.md'), '---js\n{}\n---\n');
    const snapshot = await broken;
    expect(snapshot.invalid.map((i) => [i.id, i.errors[0]?.code])).toEqual([['alpha', 'FRONTMATTER_LANGUAGE']]);
    expect(snapshot.list().map((s) => s.id)).toEqual(['delta', 'gamma']);
  });

  it('follows a skill folder renamed into place and new subfolders', async () => {
    const staging = join(tmp.path, 'staging');
    await writeSkill(staging, 'epsilon');
    const moved = until((s) => s.get('epsilon') !== undefined);
    await rename(join(staging, 'epsilon'), join(root, 'epsilon'));
    await moved;

    const withScript = until((s) => (s.get('epsilon')?.scripts.length ?? 0) > 0);
    await writeFile(join(root, 'epsilon', 'SKILL.md'), skillMd('name: epsilon\ndescription: Now with a script.', 'Run scripts/go.sh.'));
    await mkdir(join(root, 'epsilon', 'scripts'));
    await writeFile(join(root, 'epsilon', 'scripts', 'go.sh'), 'echo go\n');
    expect((await withScript).get('epsilon')?.scripts).toEqual(['scripts/go.sh']);

    const hash = registry.current().get('epsilon')?.hash;
    const edited = until((s) => s.get('epsilon')?.hash !== hash);
    await writeFile(join(root, 'epsilon', 'scripts', 'go.sh'), 'echo gone\n');
    await edited;
  });

  it('stops reloading after close', async () => {
    await registry.close();
    const version = registry.current().version;
    await writeSkill(root, 'late');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(registry.current().version).toBe(version);
    expect(registry.current().get('late')).toBeUndefined();
  });
});

describe('watchers and the process', () => {
  it('never keep the process alive', () => {
    const script = [
      "import { SkillRegistry } from './src/skills/registry.ts';",
      `await SkillRegistry.open({ roots: [${JSON.stringify(root)}], watch: true });`,
      "console.log('opened');",
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..', '..'),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stdout).toContain('opened');
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
  });
});
