// The shapes every other part of the core relies on when it talks about skills.

/** `runtime`: what the bot loads. `spec`: exactly the Agent Skills specification (`--strict`). */
export type Profile = 'runtime' | 'spec';

/** One problem found in a skill. `code` is stable (tests and tools match on it); `message` names file and field. */
export interface SkillProblem {
  code: string;
  message: string;
  /** A dependency only the skill's documents mention (`DEPENDENCY_MISSING`): worth knowing, not a need. */
  optional?: boolean;
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

/** A file the load_skill envelope lists (see envelopeFiles.ts). */
export interface ResourceFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** The whole text, when the envelope inlines it (small linked prose); cached at index time. */
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
  /** The folder as discovered under its root (may be a symlink); its name is the one `name` must equal. */
  folder: string;
  /** The parsed frontmatter (a fresh object, never gray-matter's cached one). */
  frontmatter: Readonly<Record<string, unknown>>;
  /** The markdown body of SKILL.md. */
  body: string;
  /** sha256 (hex) over every file of the folder: editing any file changes it. */
  hash: string;
  /**
   * Scripts the instructions reach (named in SKILL.md or in a markdown file it links to, transitively) and those
   * of `run-on-load`: relative paths, sorted. Only these may ever run.
   */
  scripts: string[];
  /** Our `run-on-load` extension: the only scripts load_skill runs (after approval), in the order listed. */
  runOnLoad: string[];
  /** Files under references/ and assets/ and those the instructions reach, sorted by path, as the envelope lists them. */
  resources: ResourceFile[];
  /** Such files the envelope's listing had no room for (absent: none). */
  unlistedFiles?: number;
  /** Claude Code's `disable-model-invocation: true`: out of the catalog, find_skills and load_skill; people may still run it. */
  disableModelInvocation: boolean;
  /** Claude Code's `user-invocable` (default true): false hides it from `/skill`, `/skills` and autocomplete. */
  userInvocable: boolean;
  /** Claude Code's `argument-hint`, e.g. `[version]`: shown wherever the skill is offered to people. */
  argumentHint?: string;
  /** Claude Code's `allowed-tools`: advisory only (reported by `skills show`), never a pre-approval. */
  allowedTools: string[];
  triggers: string[];
  preflight: PreflightStep[];
  hooks: HookMap;
  warnings: SkillProblem[];
}

/** Files a run created or changed in the chat's workspace, as the model reads them. */
export interface WorkspaceFilesView {
  files: Array<{ path: string; size: number; created: boolean; text?: string }>;
  /** Changed files beyond those listed. */
  unlisted: number;
  /** "workspace limit reached (N MiB)" when the run hit the workspace's bound. */
  limitReached?: string;
}

/** How a script's run is shown to the model inside `<script_output>`. */
export interface ScriptOutputView {
  script: string;
  args: string[];
  status: 'ok' | 'failed' | 'timeout' | 'refused' | 'declined' | 'not_run';
  exitCode: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  note?: string;
  workspace?: WorkspaceFilesView;
}

/** A folder holding SKILL.md that did not load, with everything wrong with it. */
export interface InvalidSkill {
  /** The frontmatter name when it could be read, else the folder's name. */
  id: string;
  root: string;
  /** The folder as discovered (not resolved). */
  folder: string;
  errors: SkillProblem[];
  warnings: SkillProblem[];
}

/** A valid skill that lost a name clash to an earlier root (or an earlier folder of the same root). */
export interface ShadowedSkill {
  id: string;
  folder: string;
  root: string;
  /** The folder of the skill that won. */
  winner: string;
}

export interface CatalogResult {
  text: string;
  /** Ids listed, sorted. */
  included: string[];
  /** Ids whose description was shortened to fit the budget. */
  shortened: string[];
  /** Ids left out because even shortened descriptions did not fit. */
  dropped: string[];
}

/** One skill find_skills answers with. */
export interface SearchHit {
  id: string;
  /** The description on one line, cut to about a sentence. */
  description: string;
  argumentHint?: string;
  score: number;
}

/** One immutable view of every skill. A turn takes one at its start and uses it throughout. */
export interface SkillSnapshot {
  readonly version: number;
  get(id: string): Skill | undefined;
  /** Valid, winning skills sorted by id. */
  list(): readonly Skill[];
  /** Where the skill's root came from: `folder`, `Claude Code project`, `plugin NAME (marketplace M)`. */
  originOf(skill: Pick<Skill, 'root'>): string;
  /**
   * Ranked search (BM25) over ids, descriptions, triggers and argument hints of this snapshot's skills, best
   * first; `accept` narrows it (a world's allow-list, skills the model may use).
   */
  search(query: string, options?: { limit?: number; accept?: (skill: Skill) => boolean }): SearchHit[];
  /** Ids nearest to `id` (edit distance), best first. */
  closest(id: string, n?: number): string[];
  /** The `Agent Skills` system prompt section (rendered once per snapshot). */
  readonly catalog: CatalogResult;
  readonly invalid: readonly InvalidSkill[];
  readonly shadowed: readonly ShadowedSkill[];
}
