// The rules for SKILL.md frontmatter, in two profiles: `spec` (exactly the Agent Skills specification) and
// `runtime` (what the bot loads: spec deviations it can live with become warnings, Claude Code's keys and
// our extensions are accepted).
import { checkHooks, checkPlaceholders, checkPreflight, checkRunOnLoad, checkTriggers, type FolderFacts } from './extensions.ts';
import { isPlainObject, ProblemList, show } from './problems.ts';
import { codePointLength } from './codePoints.ts';
import type { HookMap, PreflightStep, Profile, SkillProblem } from './types.ts';

export const SPEC_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const;
const EXTENSION_KEYS = new Set(['triggers', 'preflight', 'hooks', 'run-on-load']);
/**
 * Claude Code's skill keys, accepted in `runtime`. Honoured: `disable-model-invocation`, `user-invocable`
 * (booleans, checked as errors), `argument-hint` and `when_to_use` (appended to the description, as Claude Code
 * lists it); `allowed-tools` is reported, never a pre-approval; the rest (`model`, `effort`, `context`,
 * `agent`, `shell`, `paths`) are accepted and ignored. CLAUDE_CODE_KEY_NOTES says so.
 */
const CLAUDE_CODE_BOOLEANS = new Set(['disable-model-invocation', 'user-invocable']);
const CLAUDE_CODE_STRINGS = new Set(['argument-hint', 'model', 'context', 'agent', 'when_to_use', 'effort', 'shell']);
/** `paths`: globs of files a skill is about, a string or a list of strings in Claude Code. */
const CLAUDE_CODE_STRING_OR_LIST = new Set(['paths']);

/** How skillbot treats each Claude Code key (`skills validate` prints it for the keys a skill uses). */
export const CLAUDE_CODE_KEY_NOTES: Readonly<Record<string, string>> = {
  'disable-model-invocation': 'honoured: kept from the catalog, find_skills and load_skill; /skill still runs it',
  'user-invocable': 'honoured: false hides it from /skill, /skills and autocomplete; the model may still load it',
  'argument-hint': 'honoured: shown where the skill is offered',
  'allowed-tools': 'advisory only: reported by skills show, never a pre-approval',
  when_to_use: 'honoured: appended to the description (catalog, find_skills), as Claude Code lists it',
  model: 'ignored: the bot uses SKILLBOT_MODEL',
  effort: 'ignored: the bot calls every skill with the same settings',
  context: 'ignored',
  agent: 'ignored',
  shell: 'ignored: skill processes run in the bot\'s sandbox (bash), and `!` commands in a body never run',
  paths: 'ignored: no files are open in a chat for it to match',
};

const NAME_MAX = 64;
const DESCRIPTION_MAX = 1024;
const COMPATIBILITY_MAX = 500;

export interface ValidationInput {
  data: Readonly<Record<string, unknown>>;
  body: string;
  /** SKILL.md's path, for messages. */
  file: string;
  /** The name of the folder as discovered. */
  folderName: string;
  folder: FolderFacts;
  profile: Profile;
}

export interface ValidatedFrontmatter {
  errors: SkillProblem[];
  warnings: SkillProblem[];
  /** The name when it is a string (even an invalid one), for reports. */
  name: string | undefined;
  description: string;
  disableModelInvocation: boolean;
  userInvocable: boolean;
  argumentHint?: string;
  allowedTools: string[];
  triggers: string[];
  preflight: PreflightStep[];
  hooks: HookMap;
  runOnLoad: string[];
}

/**
 * Claude Code derives an absent `name` from the folder and an absent `description` from the body's first
 * paragraph. `runtime` does the same (with a warning); `spec` (--strict) still requires both.
 */
function derivedName(value: unknown, folderName: string, problems: ProblemList): unknown {
  if (value !== undefined || problems.profile !== 'runtime') return value;
  problems.warn('NAME_DERIVED', 'name', `is absent: the folder's name ${show(folderName)} is used, as Claude Code does`);
  return folderName;
}

/** The first paragraph of a markdown body that is prose (not a heading, list, quote, fence, table or HTML). */
export function firstParagraph(body: string): string | undefined {
  let inFence = false;
  for (const block of body.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const lines = block.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    const prose: string[] = [];
    for (const line of lines) {
      if (/^(```|~~~)/.test(line)) {
        inFence = !inFence;
        continue;
      }
      if (inFence || /^(#|[-*+] |\d+[.)] |>|\||<|!\[|---)/.test(line)) {
        if (prose.length > 0) break;
        continue;
      }
      prose.push(line);
    }
    if (prose.length > 0) return prose.join(' ');
  }
  return undefined;
}

function derivedDescription(value: unknown, body: string, problems: ProblemList): unknown {
  if (value !== undefined || problems.profile !== 'runtime') return value;
  const paragraph = firstParagraph(body);
  if (paragraph === undefined) return value;
  problems.warn('DESCRIPTION_DERIVED', 'description', "is absent: the body's first paragraph is used, as Claude Code does");
  return paragraph;
}

function checkName(value: unknown, folderName: string, problems: ProblemList): void {
  if (value === undefined) return problems.error('NAME_MISSING', 'name', 'is required');
  if (typeof value !== 'string') return problems.error('NAME_TYPE', 'name', `must be a string, got ${show(value)}`);
  const length = codePointLength(value);
  if (length < 1 || length > NAME_MAX) {
    return problems.error('NAME_LENGTH', 'name', `must be 1-${NAME_MAX} characters, got ${length}`);
  }
  if (!/^[\p{Ll}\p{Nd}-]+$/u.test(value) || value.normalize('NFKC') !== value) {
    return problems.error('NAME_CHARS', 'name', `may hold only lowercase letters, digits and hyphens, got ${show(value)}`);
  }
  if (value.startsWith('-') || value.endsWith('-') || value.includes('--')) {
    return problems.error('NAME_HYPHENS', 'name', `may not start or end with a hyphen or hold "--", got ${show(value)}`);
  }
  if (value !== folderName) {
    problems.deviation('NAME_FOLDER_MISMATCH', 'name', `${show(value)} differs from its folder's name ${show(folderName)}`);
  }
}

function checkDescription(value: unknown, problems: ProblemList): string {
  if (value === undefined) {
    problems.error('DESCRIPTION_MISSING', 'description', 'is required');
    return '';
  }
  if (typeof value !== 'string') {
    problems.error('DESCRIPTION_TYPE', 'description', `must be a string, got ${show(value)}`);
    return '';
  }
  if (value.trim() === '') {
    problems.error('DESCRIPTION_BLANK', 'description', 'must not be blank');
    return '';
  }
  const length = codePointLength(value);
  if (length > DESCRIPTION_MAX) {
    problems.deviation('DESCRIPTION_LENGTH', 'description', `must be at most ${DESCRIPTION_MAX} characters, got ${length}`);
  }
  return value;
}

function checkOptionalSpecFields(data: Readonly<Record<string, unknown>>, problems: ProblemList): void {
  const license = data['license'];
  if (license !== undefined && typeof license !== 'string') {
    problems.deviation('LICENSE_TYPE', 'license', `must be a string, got ${show(license)}`);
  }
  const compatibility = data['compatibility'];
  if (compatibility !== undefined) {
    if (typeof compatibility !== 'string') {
      problems.deviation('COMPATIBILITY_TYPE', 'compatibility', `must be a string, got ${show(compatibility)}`);
    } else {
      const length = codePointLength(compatibility);
      if (length < 1 || length > COMPATIBILITY_MAX) {
        problems.deviation('COMPATIBILITY_LENGTH', 'compatibility', `must be 1-${COMPATIBILITY_MAX} characters, got ${length}`);
      }
    }
  }
  const metadata = data['metadata'];
  if (metadata !== undefined) {
    if (!isPlainObject(metadata)) {
      problems.deviation('METADATA_TYPE', 'metadata', `must map strings to strings, got ${show(metadata)}`);
    } else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value !== 'string') {
          problems.deviation('METADATA_TYPE', `metadata.${key}`, `must be a string, got ${show(value)} (quote it)`);
        }
      }
    }
  }
  const tools = data['allowed-tools'];
  if (tools !== undefined && typeof tools !== 'string') {
    const isList = Array.isArray(tools) && tools.every((tool) => typeof tool === 'string');
    // Claude Code also takes a YAML list; the specification says a space-separated string.
    if (isList && problems.profile === 'runtime') {
      problems.warn('ALLOWED_TOOLS_TYPE', 'allowed-tools', 'the specification wants a space-separated string, not a list');
    } else {
      problems.deviation('ALLOWED_TOOLS_TYPE', 'allowed-tools', `must be a space-separated string, got ${show(tools)}`);
    }
  }
}

/** `allowed-tools` as a list: the spec's space-separated string, or Claude Code's YAML list. */
function allowedToolsOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return Array.isArray(value) ? value.filter((tool): tool is string => typeof tool === 'string' && tool.trim() !== '') : [];
}

/** Validate parsed frontmatter and body. Pure: the folder's files come in through `folder`. */
export function validateFrontmatter(input: ValidationInput): ValidatedFrontmatter {
  const { data, profile } = input;
  const problems = new ProblemList(input.file, profile);
  const name = derivedName(data['name'], input.folderName, problems);
  checkName(name, input.folderName, problems);
  let description = checkDescription(derivedDescription(data['description'], input.body, problems), problems);
  checkOptionalSpecFields(data, problems);
  const whenToUse = data['when_to_use'];
  if (profile === 'runtime' && typeof whenToUse === 'string' && whenToUse.trim() !== '' && description !== '') {
    description = `${description.trimEnd()} ${whenToUse.trim()}`;
  }

  const result: ValidatedFrontmatter = {
    errors: problems.errors,
    warnings: problems.warnings,
    name: typeof name === 'string' ? name : undefined,
    description,
    disableModelInvocation: false,
    userInvocable: true,
    allowedTools: allowedToolsOf(data['allowed-tools']),
    triggers: [],
    preflight: [],
    hooks: {},
    runOnLoad: [],
  };
  const specKeys: ReadonlySet<string> = new Set(SPEC_KEYS);
  for (const [key, value] of Object.entries(data)) {
    if (specKeys.has(key)) continue;
    if (profile === 'spec') {
      problems.error('UNKNOWN_KEY', key, 'is not an Agent Skills field (the spec profile allows only the six fields)');
    } else if (CLAUDE_CODE_BOOLEANS.has(key)) {
      if (typeof value !== 'boolean') problems.error('FIELD_TYPE', key, `must be true or false, got ${show(value)}`);
      else if (key === 'disable-model-invocation') result.disableModelInvocation = value;
      else result.userInvocable = value;
    } else if (CLAUDE_CODE_STRINGS.has(key)) {
      if (typeof value !== 'string') problems.warn('FIELD_TYPE', key, `must be a string, got ${show(value)}`);
      else if (key === 'argument-hint' && value.trim() !== '') result.argumentHint = value.replace(/\s+/g, ' ').trim();
    } else if (CLAUDE_CODE_STRING_OR_LIST.has(key)) {
      const ok = typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));
      if (!ok) problems.warn('FIELD_TYPE', key, `must be a string or a list of strings, got ${show(value)}`);
    } else if (!EXTENSION_KEYS.has(key)) {
      problems.warn('UNKNOWN_KEY', key, 'is not a known field; ignored');
    }
  }
  if (profile === 'runtime') {
    if (data['triggers'] !== undefined) result.triggers = checkTriggers(data['triggers'], problems);
    if (data['preflight'] !== undefined) result.preflight = checkPreflight(data['preflight'], input.folder, problems);
    if (data['hooks'] !== undefined) result.hooks = checkHooks(data['hooks'], input.folder, problems);
    if (data['run-on-load'] !== undefined) result.runOnLoad = checkRunOnLoad(data['run-on-load'], input.folder, problems);
    checkPlaceholders(input.body, result.preflight, problems);
  }
  return result;
}
