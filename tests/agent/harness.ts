// The agent tests' view of the engine harness (tests/lifecycle/engineHarness.ts): a few stock skills, and
// `say(text, chat, user)`. Approval questions go unanswered unless a test adds a presenter of its own.
import { type Config } from '../../src/config/config.ts';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import { type EngineHarness, type SkillSpec, startEngine, writeSkill } from '../lifecycle/engineHarness.ts';

export type SkillFixture = SkillSpec;

/** Writes skills into a root; scripts under scripts/ are made executable. */
export async function writeSkills(root: string, skills: SkillFixture[]): Promise<void> {
  for (const skill of skills) await writeSkill(root, skill);
}

export const NOTES_SKILL: SkillFixture = {
  name: 'release-notes',
  description: 'Write release notes from a list of commits.',
  body: '# Release notes\nGroup commits into Features and Fixes. Follow references/style.md.',
  files: { 'references/style.md': 'Use past tense. One line per change.' },
};

export const STATS_SKILL: SkillFixture = {
  name: 'repo-stats',
  description: 'Count lines in the repository.',
  frontmatter: 'run-on-load: [scripts/count.sh]',
  body: '# Repo stats\nscripts/count.sh runs when this skill loads (run it again with arguments to narrow it); report the number.',
  files: { 'scripts/count.sh': '#!/bin/bash\necho "lines: 42 args: $*"\n' },
};

export interface Harness extends Omit<EngineHarness, 'say'> {
  say(text: string, chat?: string, user?: string): Promise<{ reply: string; status: string }>;
}

export async function startHarness(
  options: { skills?: SkillFixture[]; store?: string; dir?: string; fake?: FakeAnthropic; tweak?: (config: Config) => void; privateNotes?: Array<{ userId: string; text: string }> } = {},
): Promise<Harness> {
  const engine = await startEngine({
    ...options,
    skills: options.skills ?? [NOTES_SKILL],
    tweak: (config) => {
      config.defaults.approvalTimeoutMs = 2000;
      options.tweak?.(config);
    },
    // Enough for a 429, a 529 and a cut stream before the answer.
    maxAttempts: 4,
  });
  return { ...engine, say: (text, chat = 'c1', user = 'U1') => engine.say(text, { chat, user }) };
}
