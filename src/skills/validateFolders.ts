// `skills validate`: check skill folders (or roots holding them) under a profile, without a registry.
import { resolve } from 'node:path';
import { FolderScanner, type ScannedFolder } from './folderScanner.ts';
import { indexScannedFolder } from './indexSkill.ts';
import type { Profile, SkillProblem } from './types.ts';

export interface SkillReport {
  id: string;
  /** The skill folder. */
  path: string;
  valid: boolean;
  errors: SkillProblem[];
  warnings: SkillProblem[];
}

export interface FolderValidation {
  skills: SkillReport[];
  /** Given folders that could not be read. */
  unreadable: string[];
  /** Given folders that hold no skill at all. */
  empty: string[];
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
  const result: FolderValidation = { skills: [], unreadable: [], empty: [] };
  const firstFolderById = new Map<string, string>();
  for (const [index, dir] of dirs.entries()) {
    const path = resolve(dir);
    const scanned: ScannedFolder[] = [];
    const tree = await scanner.index({ path, index }, { path, depth: 0 }, (batch) => scanned.push(...batch));
    if (tree.unreadable !== undefined) {
      result.unreadable.push(dir);
      continue;
    }
    if (scanned.length === 0) result.empty.push(dir);
    scanned.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
    for (const entry of scanned.map((folder) => indexScannedFolder(folder, profile))) {
      const report: SkillReport = entry.skill
        ? { id: entry.skill.id, path: entry.folder, valid: true, errors: [], warnings: [...entry.skill.warnings] }
        : {
            id: entry.invalid?.id ?? '',
            path: entry.folder,
            valid: false,
            errors: [...(entry.invalid?.errors ?? [])],
            warnings: [...(entry.invalid?.warnings ?? [])],
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
