// Installing skills from chats (top-level `install` in SKILLBOT_CONFIG, INSTALL_GITHUB_URL, INSTALLED_SKILLS_DIR):
// read once here, used by src/install.
import { z } from 'zod';
import { egressAllowSchema } from './egressAllowSchema.ts';
import { optional, urlVar } from './envVars.ts';

/** Installing skills from chats (top-level `install`); `enabled: false` is `install: false`. */
export interface InstallSettings {
  enabled: boolean;
  /** Patterns of sources that may be fetched (`github:acme/*`); undefined: any. */
  sources?: string[];
  /** A command that reads the staged folder and answers allow or deny (fail closed). */
  policyCommand?: string;
  /**
   * Address ranges and host names a git source may resolve to although not public (an internal git server; a
   * test's on loopback): `egressAllow`'s syntax, and unlike a world's, a listed range may be loopback or the host's own.
   */
  egressAllow: string[];
  /** Bound on a fetched source, in MiB. */
  maxMB: number;
  /** Fetches one person (not an installer) may ask for from chats in an hour. */
  fetchesPerHour: number;
  /** INSTALL_GITHUB_URL: what `github:` sources resolve against. */
  githubUrl: string;
  /** INSTALLED_SKILLS_DIR: the bot-owned folder installed skills are written to (a cache of the store). */
  dir: string;
}

/** `install: false`, or what may be fetched and how much. */
export const installSchema = z.union([
  z.literal(false),
  z
    .object({
      sources: z.array(z.string().min(1)).optional(),
      policyCommand: z.string().min(1).optional(),
      maxMB: z.number().int().min(1).max(4096).optional(),
      fetchesPerHour: z.number().int().min(1).max(1000).optional(),
      egressAllow: egressAllowSchema.optional(),
    })
    .strict(),
]);

export function installSettings(file: z.infer<typeof installSchema> | undefined, env: NodeJS.ProcessEnv): InstallSettings {
  const shared = {
    githubUrl: urlVar(env, 'INSTALL_GITHUB_URL') ?? 'https://github.com',
    dir: optional(env.INSTALLED_SKILLS_DIR) ?? './data/installed-skills',
  };
  if (file === false) return { enabled: false, maxMB: 100, fetchesPerHour: 5, egressAllow: [], ...shared };
  return {
    enabled: true,
    ...(file?.sources === undefined ? {} : { sources: file.sources }),
    ...(file?.policyCommand === undefined ? {} : { policyCommand: file.policyCommand }),
    maxMB: file?.maxMB ?? 100,
    fetchesPerHour: file?.fetchesPerHour ?? 5,
    egressAllow: file?.egressAllow ?? [],
    ...shared,
  };
}
