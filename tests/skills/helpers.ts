// Temp skill folders for the skills tests.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FolderScanner } from '../../src/skills/folderScanner.ts';
import { indexScannedFolder, type IndexedFolder } from '../../src/skills/indexSkill.ts';
import type { Profile, Skill } from '../../src/skills/types.ts';

export async function tempDir(prefix = 'skillbot-skills-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Write `files` (relative path → content) under `dir`. */
export async function writeFiles(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** A SKILL.md text from frontmatter lines and a body. */
export function skillMd(frontmatter: string, body = '# Skill\n\nDo the thing.\n'): string {
  return `---\n${frontmatter.trim()}\n---\n${body}`;
}

/** Write a skill folder `root/name` holding SKILL.md (and `extra` files); returns its path. */
export async function writeSkill(
  root: string,
  name: string,
  frontmatter = `name: ${name}\ndescription: The ${name} skill.`,
  body?: string,
  extra: Record<string, string | Buffer> = {},
): Promise<string> {
  const dir = join(root, name);
  await writeFiles(dir, { 'SKILL.md': skillMd(frontmatter, body), ...extra });
  return dir;
}

/** Index one folder the way the registry and `validate` do; undefined when it holds no SKILL.md. */
export async function indexOne(folder: string, profile: Profile = 'runtime'): Promise<IndexedFolder | undefined> {
  const scanner = new FolderScanner();
  try {
    const [scanned] = await scanner.scan([{ root: dirname(folder), rootIndex: 0, folder }]);
    return scanned ? indexScannedFolder(scanned, profile) : undefined;
  } finally {
    await scanner.close();
  }
}

/** The problem codes of an indexed folder: errors then warnings. */
export function codes(entry: IndexedFolder | undefined): { errors: string[]; warnings: string[] } {
  const errors = entry?.invalid?.errors.map((p) => p.code) ?? [];
  const warnings = (entry?.skill?.warnings ?? entry?.invalid?.warnings ?? []).map((p) => p.code);
  return { errors, warnings };
}

/** A Skill value for tests of pure rendering (catalog, envelope). */
export function skillValue(id: string, description: string, extra: Partial<Skill> = {}): Skill {
  return {
    id,
    description,
    root: '/skills',
    dir: `/skills/${id}`,
    folder: `/skills/${id}`,
    frontmatter: { name: id, description },
    body: `# ${id}\n\nDo the thing.\n`,
    hash: '0'.repeat(64),
    scripts: [],
    runOnLoad: [],
    resources: [],
    disableModelInvocation: false,
    userInvocable: true,
    allowedTools: [],
    triggers: [],
    preflight: [],
    hooks: {},
    warnings: [],
    ...extra,
  };
}
