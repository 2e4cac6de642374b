// `skills validate`: check skill folders (or roots holding them) under a profile, without a registry.
import { resolve } from 'node:path';
import { discoverSkills } from './discover.ts';
import { indexSkillFolder } from './indexSkill.ts';
import { Limiter, mapLimited } from './limiter.ts';
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
  const limiter = new Limiter(64);
  const result: FolderValidation = { skills: [], unreadable: [], empty: [] };
  const firstFolderById = new Map<string, string>();
  for (const [index, dir] of dirs.entries()) {
    const path = resolve(dir);
    const found = await discoverSkills({ path, index }, { path, depth: 0 }, limiter);
    if (found.unreadable !== undefined) {
      result.unreadable.push(dir);
      continue;
    }
    const indexed = await mapLimited(found.skills, 256, (place) => indexSkillFolder(place, profile, limiter));
    let count = 0;
    for (const entry of indexed) {
      if (!entry) continue;
      count += 1;
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
    if (count === 0) result.empty.push(dir);
  }
  return result;
}
