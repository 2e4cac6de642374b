// The skills a staged tree holds, found the way the registry finds them (a folder of skills, a plugin, a
// marketplace checkout: src/skills/skillRoots.ts) and indexed by the registry's own code, so the content hash
// and every `skills validate` problem are exactly what the bot will see once it is installed.
import { relative } from 'node:path';
import { FolderScanner, type ScannedFolder } from '../skills/folderScanner.ts';
import { indexScannedFolder } from '../skills/indexSkill.ts';
import { expandSkillRoots } from '../skills/skillRoots.ts';
import type { Skill, SkillProblem } from '../skills/types.ts';
import type { Staged, StagedFile } from './staging.ts';

export interface StagedSkill {
  id: string;
  description: string;
  /** Relative to the staged tree's top (`''`: the top itself). */
  folder: string;
  /** Absolute. */
  dir: string;
  /** The registry's content hash of the folder. */
  hash: string;
  files: StagedFile[];
  /** Undefined when the skill is invalid (then `errors` says why). */
  skill?: Skill;
  errors: SkillProblem[];
  warnings: SkillProblem[];
}

export interface StagedSkills {
  skills: StagedSkill[];
  /** A broken marketplace.json or plugin.json, each saying where. */
  problems: string[];
}

export async function findStagedSkills(staged: Staged): Promise<StagedSkills> {
  const scanner = new FolderScanner();
  try {
    const { roots, problems } = await expandSkillRoots([staged.dir]);
    const found: ScannedFolder[] = [];
    const seen = new Set<string>();
    for (const [index, root] of roots.entries()) {
      await scanner.index({ path: root.path, index }, { path: root.path, depth: 0 }, (batch) => {
        for (const folder of batch) {
          if (seen.has(folder.folder)) continue;
          seen.add(folder.folder);
          found.push(folder);
        }
      });
    }
    found.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
    const skills = found.map((scanned): StagedSkill => {
      const entry = indexScannedFolder(scanned, 'runtime');
      const folder = relative(staged.dir, scanned.folder).split('\\').join('/');
      const prefix = folder === '' ? '' : `${folder}/`;
      const files = staged.files.filter((file) => prefix === '' || file.path.startsWith(prefix)).map((file) => ({ ...file, path: file.path.slice(prefix.length) }));
      // A skill at the top of a repository sits in our staging folder, whose name is ours: no mismatch to show.
      const ours = (problem: SkillProblem) => folder === '' && problem.code === 'NAME_FOLDER_MISMATCH';
      if (entry.skill) {
        return { id: entry.skill.id, description: entry.skill.description, folder, dir: scanned.folder, hash: entry.hash, files, skill: entry.skill, errors: [], warnings: entry.skill.warnings.filter((problem) => !ours(problem)) };
      }
      return {
        id: entry.invalid?.id ?? folder,
        description: '',
        folder,
        dir: scanned.folder,
        hash: entry.hash,
        files,
        errors: [...(entry.invalid?.errors ?? [])],
        warnings: (entry.invalid?.warnings ?? []).filter((problem) => !ours(problem)),
      };
    });
    return { skills, problems };
  } finally {
    await scanner.close();
  }
}
