// The skills both instances serve: one with a script (loading it asks for approval) and one without.
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SCRIPT_SKILL_ID = 'file-tally';
/** What the script prints: a reply that saw it knows the script ran. */
export const SCRIPT_OUTPUT = 'TALLY-OK 42 files';
/** A skill without scripts: loading it asks nothing. */
export const STYLE_SKILL_ID = 'style-guide';

const SKILLS: Array<{ id: string; skillMd: string; script?: string }> = [
  {
    id: SCRIPT_SKILL_ID,
    skillMd: `---\nname: ${SCRIPT_SKILL_ID}\ndescription: Count the files of the project and report the total.\nrun-on-load: [scripts/tally.sh]\n---\n# File tally\nRun scripts/tally.sh and report the number it prints.\n`,
    script: `#!/bin/sh\necho "${SCRIPT_OUTPUT}"\n`,
  },
  {
    id: STYLE_SKILL_ID,
    skillMd: '---\nname: style-guide\ndescription: Answer questions about the team writing style.\n---\n# Style guide\nPrefer short sentences.\n',
  },
];

/** A temp dir holding `skills/` (the SKILLS_DIRS root) and `logs/` (the instances' stderr). */
export async function makeRunDir(): Promise<{ dir: string; skillsRoot: string; logsDir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-load-'));
  const skillsRoot = join(dir, 'skills');
  const logsDir = join(dir, 'logs');
  await mkdir(logsDir);
  for (const skill of SKILLS) {
    await mkdir(join(skillsRoot, skill.id, 'scripts'), { recursive: true });
    await writeFile(join(skillsRoot, skill.id, 'SKILL.md'), skill.skillMd);
    if (skill.script !== undefined) {
      const path = join(skillsRoot, skill.id, 'scripts', 'tally.sh');
      await writeFile(path, skill.script);
      await chmod(path, 0o755);
    }
  }
  return { dir, skillsRoot, logsDir };
}
