// The whole environment a skill process sees: an allowlist, never the bot's own variables (tokens, API keys).
import type { RunDirs } from './runDirs.ts';

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * PATH and LANG from the bot, then the variables the world's config gives this skill (they may set PATH or LANG),
 * then the run's own HOME and TMPDIR, which nothing overrides.
 */
export function childEnv(parent: NodeJS.ProcessEnv, configured: Record<string, string>, dirs: RunDirs): Record<string, string> {
  return {
    PATH: parent.PATH ?? FALLBACK_PATH,
    LANG: parent.LANG ?? 'C.UTF-8',
    ...configured,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
  };
}
