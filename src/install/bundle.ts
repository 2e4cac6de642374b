// A staged skill's exact bytes as a store bundle, and the difference between two versions of a skill.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Bundle } from './installRecords.ts';
import type { StagedSkill } from './stagedSkills.ts';

export async function bundleOf(skill: StagedSkill): Promise<Bundle> {
  const files = await Promise.all(
    skill.files.map(async (file) => ({ path: file.path, executable: file.executable, data: (await readFile(join(skill.dir, file.path))).toString('base64') })),
  );
  return { hash: skill.hash, files };
}

const isScript = (path: string, executable: boolean) => path.startsWith('scripts/') || executable;

/** `+ scripts/new.sh (script)`, `~ scripts/run.py (script changed)`, `- references/old.md`, sorted by path. */
export function describeDifference(before: Bundle, after: StagedSkill): string[] {
  const old = new Map(before.files.map((file) => [file.path, { sha: createHash('sha256').update(Buffer.from(file.data, 'base64')).digest('hex'), executable: file.executable }]));
  const lines: Array<[string, string]> = [];
  for (const file of after.files) {
    const was = old.get(file.path);
    const script = isScript(file.path, file.executable);
    if (was === undefined) lines.push([file.path, `+ ${file.path}${script ? ' (script, new)' : ''}`]);
    else if (was.sha !== file.sha256 || was.executable !== file.executable) lines.push([file.path, `~ ${file.path}${script ? ' (script changed)' : ' (changed)'}`]);
    old.delete(file.path);
  }
  for (const [path, was] of old) lines.push([path, `- ${path}${isScript(path, was.executable) ? ' (script, removed)' : ''}`]);
  return lines.sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, line]) => line);
}
