import { mkdtemp, mkdir, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import type { IncomingMessage } from '../../src/platform.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';

export interface SkillFixture {
  name: string;
  description: string;
  body: string;
  files?: Record<string, string>;
  extra?: string;
}

/** Writes skills into a fresh root; scripts under scripts/ are made executable. */
export async function writeSkills(root: string, skills: SkillFixture[]): Promise<void> {
  for (const skill of skills) {
    const dir = join(root, skill.name);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'SKILL.md'),
      `---\nname: ${skill.name}\ndescription: ${skill.description}\n${skill.extra ?? ''}---\n${skill.body}\n`,
    );
    for (const [path, text] of Object.entries(skill.files ?? {})) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
      if (path.startsWith('scripts/')) await chmod(join(dir, path), 0o755);
    }
  }
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
  body: '# Repo stats\nRun scripts/count.sh and report the number.',
  files: { 'scripts/count.sh': '#!/bin/bash\necho "lines: 42 args: $*"\n' },
};


export interface Harness {
  app: App;
  fake: FakeAnthropic;
  dir: string;
  config: Config;
  say(text: string, chat?: string, user?: string): Promise<{ reply: string; status: string }>;
  close(): Promise<void>;
}

export async function startHarness(options: {
  skills?: SkillFixture[];
  store?: string;
  dir?: string;
  fake?: FakeAnthropic;
  env?: Record<string, string>;
  tweak?: (config: Config) => void;
} = {}): Promise<Harness> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'skillbot-agent-')));
  const skillsRoot = join(dir, 'skills');
  await mkdir(skillsRoot, { recursive: true });
  await writeSkills(skillsRoot, options.skills ?? [NOTES_SKILL]);
  const fake = options.fake ?? (await startFakeAnthropic());
  const config = loadConfig({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.url,
    SKILLS_DIRS: skillsRoot,
    STORE_URL: options.store ?? 'memory://',
    APPROVAL_TIMEOUT_MS: '2000',
    ...options.env,
  });
  options.tweak?.(config);
  const app = await createApp(config, silentLogger(), {
    watchSkills: false,
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
  });
  return {
    app,
    fake,
    dir,
    config,
    async say(text, chat = 'c1', user = 'U1') {
      const replies: string[] = [];
      const message: IncomingMessage = { worldId: 'terminal:local', chatId: `terminal:local/${chat}`, userId: user, text };
      const outcome = await app.engine.handleMessage(message, {
        progress() {},
        async reply(markdown) {
          replies.push(markdown);
        },
      });
      if (replies.length !== 1) throw new Error(`expected exactly one reply, got ${replies.length}`);
      return { reply: replies[0] ?? '', status: outcome.status };
    },
    async close() {
      await app.close();
      if (!options.fake) await fake.close();
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
