// `skills validate`: check skill folders (or roots holding them) under a profile, without a registry.
import { resolve } from 'node:path';
import { FolderScanner, type ScannedFolder } from './folderScanner.ts';
import { indexScannedFolder } from './indexSkill.ts';
import { expandSkillRoots } from './skillRoots.ts';
import { CLAUDE_CODE_KEY_NOTES } from './validate.ts';
import type { Profile, SkillProblem } from './types.ts';

export interface SkillReport {
  id: string;
  /** The skill folder. */
  path: string;
  valid: boolean;
  errors: SkillProblem[];
  warnings: SkillProblem[];
  /** Claude Code keys the skill's frontmatter uses (`skills validate` says how each is treated). */
  claudeCodeKeys: string[];
}

export interface FolderValidation {
  skills: SkillReport[];
  /** Given folders that could not be read. */
  unreadable: string[];
  /** Given folders that hold no skill at all. */
  empty: string[];
  /** A marketplace.json or plugin.json that is broken, or names paths that cannot be used (each says where). */
  rootProblems: string[];
}

function claudeCodeKeysOf(frontmatter: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(CLAUDE_CODE_KEY_NOTES).filter((key) => frontmatter[key] !== undefined);
}

/** Validate every skill in `dirs` (each a skill folder or a root of skills), in order. */
export async function validateFolders(dirs: readonly string[], profile: Profile): Promise<FolderValidation> {
  const scanner = new FolderScanner();
  try {
    return await validateWith(scanner, dirs, profile);
  } finally {
    await scanner.close();
  }
}

async function validateWith(scanner: FolderScanner, dirs: readonly string[], profile: Profile): Promise<FolderValidation> {
  const result: FolderValidation = { skills: [], unreadable: [], empty: [], rootProblems: [] };
  const firstFolderById = new Map<string, string>();
  let index = 0;
  for (const dir of dirs) {
    // A DIR may be a Claude Code project, a plugin or a marketplace checkout: each stands for its skill roots.
    const { roots, problems } = await expandSkillRoots([dir]);
    result.rootProblems.push(...problems);
    const scanned: ScannedFolder[] = [];
    let unreadable = false;
    for (const { path } of roots) {
      const tree = await scanner.index({ path, index }, { path, depth: 0 }, (batch) => scanned.push(...batch));
      index += 1;
      if (tree.unreadable !== undefined && path === resolve(dir)) unreadable = true;
    }
    if (unreadable) {
      result.unreadable.push(dir);
      continue;
    }
    if (scanned.length === 0) result.empty.push(dir);
    scanned.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
    for (const entry of scanned.map((folder) => indexScannedFolder(folder, profile))) {
      const report: SkillReport = entry.skill
        ? { id: entry.skill.id, path: entry.folder, valid: true, errors: [], warnings: [...entry.skill.warnings], claudeCodeKeys: claudeCodeKeysOf(entry.skill.frontmatter) }
        : {
            id: entry.invalid?.id ?? '',
            path: entry.folder,
            valid: false,
            errors: [...(entry.invalid?.errors ?? [])],
            warnings: [...(entry.invalid?.warnings ?? [])],
            claudeCodeKeys: [],
          };
      const first = firstFolderById.get(report.id);
      if (first !== undefined && report.valid) {
        report.warnings.push({
          code: 'DUPLICATE_ID',
          message: `${report.path}: name: "${report.id}" is also the name of ${first}, which wins (earlier root)`,
        });
      } else if (report.valid) firstFolderById.set(report.id, report.path);
      result.skills.push(report);
    }
  }
  return result;
}
