// Our frontmatter extensions (runtime profile only): triggers, preflight steps, hooks and run-on-load.
// They are validated here, at load time; later parts (trigger matching, lifecycle) rely on the shapes.
import { BUILTIN_PREFLIGHT_TOOLS, isBuiltinPreflightTool } from './toolNames.ts';
import { posix } from 'node:path';
import { isPlainObject, type ProblemList, show } from './problems.ts';
import { HOOK_EVENTS, type HookEvent, type HookMap, type HookSpec, type InjectMode, type PreflightStep } from './types.ts';

/** What validation needs to know about the folder's files (gathered by the scan). */
export interface FolderFacts {
  /** Regular files inside the folder (symlinks resolving inside included), relative, `/`-separated. */
  files: ReadonlySet<string>;
  /** Symlinks that resolve outside the folder. */
  outsideLinks: ReadonlySet<string>;
}

const INJECT_MODES: readonly InjectMode[] = ['context', 'variable', 'silent'];
const STEP_KEYS = new Set(['name', 'tool', 'command', 'args', 'inject', 'optional', 'timeout']);
const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// The runtime caps a step or hook at 120 s; a longer ask is a mistake worth naming at load time.
const MAX_TIMEOUT_SECONDS = 120;
const PLACEHOLDER = /\{\{\s*preflight\.([^\s}]*)\s*\}\}/g;
/** Claude Code's hook events: a `hooks` value keyed by these is Claude Code's format, not ours. */
const CLAUDE_CODE_EVENTS = new Set([
  'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'Notification', 'UserPromptSubmit',
  'Stop', 'SubagentStart', 'SubagentStop', 'PreCompact', 'SessionStart', 'SessionEnd', 'Setup',
]);

type PathCheck = { ok: true; path: string } | { ok: false; code: 'PATH' | 'OUTSIDE' | 'MISSING'; text: string };

/** A path that names a file inside the skill folder, after resolving symlinks. */
export function checkPathInFolder(value: string, folder: FolderFacts): PathCheck {
  if (value.trim() === '' || value.includes('\\') || value.includes('\0')) {
    return { ok: false, code: 'PATH', text: `${show(value)} is not a usable relative path` };
  }
  if (posix.isAbsolute(value) || value.startsWith('~')) {
    return { ok: false, code: 'PATH', text: `${show(value)} must be relative to the skill folder` };
  }
  if (value.split('/').includes('..')) {
    return { ok: false, code: 'PATH', text: `${show(value)} may not use ".."` };
  }
  const path = posix.normalize(value);
  if (folder.outsideLinks.has(path)) {
    return { ok: false, code: 'OUTSIDE', text: `${show(value)} is a symlink that resolves outside the skill folder` };
  }
  if (!folder.files.has(path)) return { ok: false, code: 'MISSING', text: `${show(value)} is not a file in the skill folder` };
  return { ok: true, path };
}

function checkTimeout(value: unknown): number | undefined | 'bad' {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_SECONDS) return 'bad';
  return value;
}

export function checkTriggers(value: unknown, problems: ProblemList): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.error('TRIGGERS_INVALID', 'triggers', `must be a non-empty list of phrases, got ${show(value)}`);
    return [];
  }
  const triggers: string[] = [];
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.trim() === '') {
      problems.error('TRIGGERS_INVALID', `triggers[${index}]`, `must be a non-blank string, got ${show(item)}`);
    } else triggers.push(item.trim());
  });
  return triggers;
}

function checkStep(raw: unknown, field: string, folder: FolderFacts, problems: ProblemList): PreflightStep | undefined {
  if (!isPlainObject(raw)) {
    problems.error('PREFLIGHT_STEP_INVALID', field, `must be a mapping, got ${show(raw)}`);
    return undefined;
  }
  const before = problems.errors.length;
  for (const key of Object.keys(raw)) {
    if (!STEP_KEYS.has(key)) problems.error('PREFLIGHT_STEP_INVALID', `${field}.${key}`, 'is not a preflight step field');
  }
  const { name, tool, command, args, inject = 'context', optional = false, timeout } = raw;
  const step: PreflightStep = { args: [], inject: 'context', optional: false };
  if ((tool === undefined) === (command === undefined)) {
    problems.error('PREFLIGHT_TOOL_OR_COMMAND', field, 'needs exactly one of tool or command');
  }
  if (tool !== undefined) {
    if (typeof tool !== 'string' || tool.trim() === '') {
      problems.error('PREFLIGHT_STEP_INVALID', `${field}.tool`, `must be a tool name, got ${show(tool)}`);
    } else if (!isBuiltinPreflightTool(tool)) {
      problems.error('PREFLIGHT_UNKNOWN_TOOL', `${field}.tool`, `"${tool}" is not a built-in tool; use one of ${BUILTIN_PREFLIGHT_TOOLS.join(', ')}`);
    } else step.tool = tool;
  }
  if (command !== undefined) {
    const checked = typeof command === 'string' ? checkPathInFolder(command, folder) : undefined;
    if (!checked) problems.error('PREFLIGHT_COMMAND_PATH', `${field}.command`, `must be a path, got ${show(command)}`);
    else if (!checked.ok) problems.error(`PREFLIGHT_COMMAND_${checked.code}`, `${field}.command`, checked.text);
    else step.command = checked.path;
  }
  if (args !== undefined) {
    const scalars = Array.isArray(args) && args.every((a) => ['string', 'number', 'boolean'].includes(typeof a));
    if (!scalars) problems.error('PREFLIGHT_ARGS', `${field}.args`, `must be a list of strings, got ${show(args)}`);
    else step.args = (args as unknown[]).map(String);
  }
  if (typeof inject !== 'string' || !INJECT_MODES.includes(inject as InjectMode)) {
    problems.error('PREFLIGHT_INJECT', `${field}.inject`, `must be one of ${INJECT_MODES.join(', ')}, got ${show(inject)}`);
  } else step.inject = inject as InjectMode;
  if (typeof optional !== 'boolean') {
    problems.error('PREFLIGHT_OPTIONAL', `${field}.optional`, `must be true or false, got ${show(optional)}`);
  } else step.optional = optional;
  const seconds = checkTimeout(timeout);
  if (seconds === 'bad') {
    problems.error('PREFLIGHT_TIMEOUT', `${field}.timeout`, `must be seconds, above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
  } else if (seconds !== undefined) step.timeout = seconds;
  if (name !== undefined) {
    if (typeof name !== 'string' || !STEP_NAME.test(name)) {
      problems.error('PREFLIGHT_NAME', `${field}.name`, `must be letters, digits, _ or - (a variable name), got ${show(name)}`);
    } else step.name = name;
  } else if (step.inject === 'variable') {
    problems.error('PREFLIGHT_NAME_REQUIRED', `${field}.name`, 'is required when inject is variable');
  }
  return problems.errors.length === before ? step : undefined;
}

export function checkPreflight(value: unknown, folder: FolderFacts, problems: ProblemList): PreflightStep[] {
  if (!Array.isArray(value)) {
    problems.error('PREFLIGHT_INVALID', 'preflight', `must be a list of steps, got ${show(value)}`);
    return [];
  }
  const steps: PreflightStep[] = [];
  const names = new Set<string>();
  value.forEach((raw, index) => {
    const step = checkStep(raw, `preflight[${index}]`, folder, problems);
    if (!step) return;
    if (step.name !== undefined) {
      if (names.has(step.name)) {
        problems.error('PREFLIGHT_NAME_DUPLICATE', `preflight[${index}].name`, `${show(step.name)} is used by an earlier step`);
      }
      names.add(step.name);
    }
    steps.push(step);
  });
  return steps;
}

/** Every `{{preflight.X}}` in the body needs a step named X that injects a variable. */
export function checkPlaceholders(body: string, steps: readonly PreflightStep[], problems: ProblemList): void {
  const variables = new Set(steps.filter((s) => s.inject === 'variable').map((s) => s.name));
  const reported = new Set<string>();
  for (const match of body.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    if (variables.has(name) || reported.has(name)) continue;
    reported.add(name);
    problems.error('PREFLIGHT_UNKNOWN_VARIABLE', 'body', `{{preflight.${name}}} needs a preflight step named ${show(name)} with inject: variable`);
  }
}

function isClaudeCodeShape(hooks: Record<string, unknown>): boolean {
  return Object.entries(hooks).some(
    ([key, value]) =>
      CLAUDE_CODE_EVENTS.has(key) ||
      /^[A-Z]/.test(key) ||
      (Array.isArray(value) && value.some((item) => isPlainObject(item) && ('matcher' in item || 'hooks' in item))),
  );
}

function checkHookEntry(raw: unknown, field: string, folder: FolderFacts, problems: ProblemList): HookSpec | undefined {
  const script = isPlainObject(raw) ? raw['script'] : raw;
  const timeout = isPlainObject(raw) ? checkTimeout(raw['timeout']) : undefined;
  const extra = isPlainObject(raw) ? Object.keys(raw).filter((k) => k !== 'script' && k !== 'timeout') : [];
  if (typeof script !== 'string' || extra.length > 0) {
    problems.error('HOOKS_INVALID', field, `must be a script path or {script, timeout}, got ${show(raw)}`);
    return undefined;
  }
  if (timeout === 'bad') {
    problems.error('HOOKS_INVALID', `${field}.timeout`, `must be seconds, above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
    return undefined;
  }
  const checked = checkPathInFolder(script, folder);
  if (!checked.ok) {
    problems.error(`HOOK_${checked.code}`, field, checked.text);
    return undefined;
  }
  return timeout === undefined ? { script: checked.path } : { script: checked.path, timeout };
}

export function checkHooks(value: unknown, folder: FolderFacts, problems: ProblemList): HookMap {
  if (!isPlainObject(value)) {
    problems.error('HOOKS_INVALID', 'hooks', `must map events to script paths, got ${show(value)}`);
    return {};
  }
  if (isClaudeCodeShape(value)) {
    problems.warn('HOOKS_CLAUDE_CODE_IGNORED', 'hooks', "looks like Claude Code's hooks format; skillbot ignores it");
    return {};
  }
  const hooks: HookMap = {};
  const events: ReadonlySet<string> = new Set(HOOK_EVENTS);
  for (const [event, raw] of Object.entries(value)) {
    if (!events.has(event)) {
      problems.error('HOOK_UNKNOWN_EVENT', `hooks.${event}`, `is not an event; use one of ${HOOK_EVENTS.join(', ')}`);
      continue;
    }
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length === 0) problems.error('HOOKS_INVALID', `hooks.${event}`, 'must name at least one script');
    const specs = list
      .map((item, index) => checkHookEntry(item, Array.isArray(raw) ? `hooks.${event}[${index}]` : `hooks.${event}`, folder, problems))
      .filter((spec): spec is HookSpec => spec !== undefined);
    if (specs.length > 0) hooks[event as HookEvent] = specs;
  }
  return hooks;
}

/** `run-on-load`: a list of script paths (under scripts/) that load_skill runs, after approval, in this order. */
export function checkRunOnLoad(value: unknown, folder: FolderFacts, problems: ProblemList): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) {
    problems.error('RUN_ON_LOAD_INVALID', 'run-on-load', `must be a list of script paths, got ${show(value)}`);
    return [];
  }
  const scripts: string[] = [];
  list.forEach((item, index) => {
    const field = `run-on-load[${index}]`;
    if (typeof item !== 'string') {
      problems.error('RUN_ON_LOAD_INVALID', field, `must be a script path, got ${show(item)}`);
      return;
    }
    const checked = checkPathInFolder(item, folder);
    if (!checked.ok) problems.error(`RUN_ON_LOAD_${checked.code}`, field, checked.text);
    else if (!checked.path.startsWith('scripts/')) problems.error('RUN_ON_LOAD_INVALID', field, `${show(item)} must be a script under scripts/`);
    else if (!scripts.includes(checked.path)) scripts.push(checked.path);
  });
  return scripts;
}
