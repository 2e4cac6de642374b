// The shapes every other part of the core relies on when it talks about skills.

/** `runtime`: what the bot loads. `spec`: exactly the Agent Skills specification (`--strict`). */
export type Profile = 'runtime' | 'spec';

/** One problem found in a skill. `code` is stable (tests and tools match on it); `message` names file and field. */
export interface SkillProblem {
  code: string;
  message: string;
}

export type InjectMode = 'context' | 'variable' | 'silent';

export interface PreflightStep {
  name?: string;
  /** A built-in deterministic tool (exactly one of tool or command). */
  tool?: string;
  /** A script inside the skill folder, run through the guarded exec path. */
  command?: string;
  args: string[];
  inject: InjectMode;
  optional: boolean;
  /** Seconds. */
  timeout?: number;
}

export const HOOK_EVENTS = ['pre_context', 'post_context', 'pre_execute', 'post_execute', 'on_error'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookSpec {
  /** Path relative to the skill folder. */
  script: string;
  /** Seconds. */
  timeout?: number;
}

export type HookMap = Partial<Record<HookEvent, HookSpec[]>>;

/** A file under references/ or assets/. */
export interface ResourceFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** Text of the file when the body names it and it is small text; cached at index time. */
  text?: string;
}

/** A validated skill as the registry holds it. Treat as immutable. */
export interface Skill {
  id: string;
  description: string;
  /** The SKILLS_DIRS root this skill was found under. */
  root: string;
  /** Real path of the skill folder. */
  dir: string;
  /** The parsed frontmatter (a fresh object, never gray-matter's cached one). */
  frontmatter: Readonly<Record<string, unknown>>;
  /** The markdown body of SKILL.md. */
  body: string;
  /** sha256 (hex) over every file of the folder: editing any file changes it. */
  hash: string;
  /** Scripts under scripts/ that the body names, relative paths, sorted. Only these may ever run. */
  scripts: string[];
  /** Files under references/ and assets/, sorted by path. */
  resources: ResourceFile[];
  disableModelInvocation: boolean;
  triggers: string[];
  preflight: PreflightStep[];
  hooks: HookMap;
  warnings: SkillProblem[];
}
