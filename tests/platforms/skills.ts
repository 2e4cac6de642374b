// What the Slack, Discord and contract tests share: the test skills, a temp skills folder holding them, and the
// scripted models their conversations use. One copy, so a platform's tests and the contract mean the same skill.
import { chmod, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { uniqueSleep } from '../exec/skillFolder.ts';
import { type SkillSpec, writeSkill } from '../lifecycle/engineHarness.ts';

export type TestSkill = SkillSpec & { id: string };
const skill = (spec: SkillSpec): TestSkill => ({ ...spec, id: spec.name });

/** A skill that runs a script when it loads (`run-on-load`), so loading it asks for approval. */
export const REPORT_SKILL = skill({
  name: 'disk-report',
  description: 'Report disk usage of the project.',
  frontmatter: 'run-on-load: [scripts/report.sh]',
  body: '# Disk report\nscripts/report.sh runs when this skill loads; summarise its output.',
  files: { 'scripts/report.sh': '#!/bin/sh\necho "disk used: 42%"\n' },
});
export const NOTES_SKILL = skill({
  name: 'release-notes',
  description: 'Write release notes from a list of commits.',
  frontmatter: 'argument-hint: "[commits]"',
  body: '# Release notes\nGroup commits into Features and Fixes.',
});
/** Claude Code's `user-invocable: false`: the model may load it; people are never offered it. */
export const HIDDEN_SKILL = skill({
  name: 'house-style',
  description: 'The house writing style.',
  frontmatter: 'user-invocable: false',
  body: '# House style\nShort sentences.',
});

/** The slow script's `sleep` argument: how a test finds its process from the host (it runs sandboxed). */
export const SLOW_SLEEP = uniqueSleep();
/** A script that works far longer than any test waits, for stopping it. */
export const SLOW_SKILL = skill({
  name: 'slow-job',
  description: 'A job that takes a long time.',
  frontmatter: 'run-on-load: [scripts/slow.sh]',
  body: 'scripts/slow.sh runs when this skill loads.',
  files: { 'scripts/slow.sh': `#!/bin/sh\nsleep ${SLOW_SLEEP}\n` },
});

/** The example skills that ship with skillbot (csv-summary among them). */
const EXAMPLE_SKILLS_ROOT = join(process.cwd(), 'skills');

export interface SkillsDir {
  /** The temp folder (room for a SQLite file beside the skills). */
  dir: string;
  skillsRoot: string;
  remove(): Promise<void>;
}

/**
 * A temp folder whose `skills` root holds `skills` (by default the report, notes and hidden skills) and copies of
 * the named example skills (only those: the others' triggers would join conversations they were not asked into).
 */
export async function makeSkillsDir(skills: readonly TestSkill[] = [REPORT_SKILL, NOTES_SKILL, HIDDEN_SKILL], examples: readonly string[] = []): Promise<SkillsDir> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-platform-'));
  // The bot's chat workspaces go beside the skills: the sandbox's user must be able to enter (mkdtemp makes 0700).
  await chmod(dir, 0o755);
  const skillsRoot = join(dir, 'skills');
  for (const spec of skills) await writeSkill(skillsRoot, spec);
  for (const name of examples) await cp(join(EXAMPLE_SKILLS_ROOT, name), join(skillsRoot, name), { recursive: true });
  return { dir, skillsRoot, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The model loads the report skill, then says whether its script ran. */
export function reportBrain(anthropic: FakeAnthropic): void {
  anthropic.setBrain((req) => {
    const result = lastToolResult(req);
    if (!result) return toolUseReply('load_skill', { skill_id: REPORT_SKILL.id });
    return textReply(result.content.includes('disk used: 42%') ? 'the script ran' : 'the script did not run');
  });
}

/** The model answers "heard: " and what it was told last. */
export function heardBrain(anthropic: FakeAnthropic): void {
  anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
}

/** Model calls held open until the test lets them go (a stopped turn's call is let go at the end, unanswered). */
export class HeldCalls {
  readonly #waiting: Array<() => void> = [];

  /** Resolves once the test calls `release` or `releaseAll`. */
  hold(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  get count(): number {
    return this.#waiting.length;
  }

  releaseAll(): void {
    for (const release of this.#waiting.splice(0)) release();
  }
}
