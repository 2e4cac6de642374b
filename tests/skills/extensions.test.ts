import { describe, expect, it } from 'vitest';
import type { FolderFacts } from '../../src/skills/extensions.ts';
import type { Profile } from '../../src/skills/types.ts';
import { validateFrontmatter } from '../../src/skills/validate.ts';

const FOLDER: FolderFacts = {
  files: new Set(['SKILL.md', 'scripts/branch.sh', 'hooks/pre.sh', 'hooks/post.sh']),
  outsideLinks: new Set(['hooks/escape.sh']),
};
const base = { name: 'my-skill', description: 'Does the thing.' };

function check(extra: Record<string, unknown>, body = 'Body.', profile: Profile = 'runtime') {
  const result = validateFrontmatter({
    data: { ...base, ...extra },
    body,
    file: '/skills/my-skill/SKILL.md',
    folderName: 'my-skill',
    folder: FOLDER,
    profile,
  });
  return { ...result, errors: result.errors.map((p) => p.code), warnings: result.warnings.map((p) => p.code) };
}

describe('triggers', () => {
  it('keeps a list of phrases', () => {
    expect(check({ triggers: ['deploy', ' ship it '] })).toMatchObject({ errors: [], triggers: ['deploy', 'ship it'] });
  });

  it.each([[[]], ['deploy'], [['deploy', '']], [[1]], [[null]]])('refuses %j', (triggers) => {
    expect(check({ triggers }).errors).toContain('TRIGGERS_INVALID');
  });

  it('is an unknown key in the spec profile', () => {
    expect(check({ triggers: ['deploy'] }, 'Body.', 'spec').errors).toEqual(['UNKNOWN_KEY']);
  });
});

describe('preflight', () => {
  it('reads steps with defaults', () => {
    const result = check({
      preflight: [
        { tool: 'current_time' },
        { name: 'branch', command: './scripts/branch.sh', args: ['--short', 3, true], inject: 'variable', optional: true, timeout: 5 },
      ],
    }, 'On {{ preflight.branch }}.');
    expect(result.errors).toEqual([]);
    expect(result.preflight).toEqual([
      { tool: 'current_time', args: [], inject: 'context', optional: false },
      { name: 'branch', command: 'scripts/branch.sh', args: ['--short', '3', 'true'], inject: 'variable', optional: true, timeout: 5 },
    ]);
  });

  it.each<[string, unknown, string]>([
    ['a preflight that is not a list', { tool: 'current_time' }, 'PREFLIGHT_INVALID'],
    ['a step that is not a mapping', ['git status'], 'PREFLIGHT_STEP_INVALID'],
    ['an unknown step key', [{ tool: 'current_time', shell: true }], 'PREFLIGHT_STEP_INVALID'],
    ['both tool and command', [{ tool: 'current_time', command: 'scripts/branch.sh' }], 'PREFLIGHT_TOOL_OR_COMMAND'],
    ['neither tool nor command', [{ name: 'x' }], 'PREFLIGHT_TOOL_OR_COMMAND'],
    ['a blank tool', [{ tool: ' ' }], 'PREFLIGHT_STEP_INVALID'],
    ['a variable step without a name', [{ tool: 'current_time', inject: 'variable' }], 'PREFLIGHT_NAME_REQUIRED'],
    ['a name that is not a variable name', [{ tool: 'current_time', name: 'two words' }], 'PREFLIGHT_NAME'],
    ['two steps with one name', [{ tool: 'current_time', name: 'a' }, { tool: 'skill_list', name: 'a' }], 'PREFLIGHT_NAME_DUPLICATE'],
    ['an unknown inject mode', [{ tool: 'current_time', inject: 'prompt' }], 'PREFLIGHT_INJECT'],
    ['optional that is not a boolean', [{ tool: 'current_time', optional: 'yes' }], 'PREFLIGHT_OPTIONAL'],
    ['a zero timeout', [{ tool: 'current_time', timeout: 0 }], 'PREFLIGHT_TIMEOUT'],
    ['a timeout above the 120 s cap', [{ tool: 'current_time', timeout: 121 }], 'PREFLIGHT_TIMEOUT'],
    ['a tool that is not built in', [{ tool: 'git_status' }], 'PREFLIGHT_UNKNOWN_TOOL'],
    ['a timeout that is text', [{ tool: 'current_time', timeout: '5s' }], 'PREFLIGHT_TIMEOUT'],
    ['args that are not a list', [{ tool: 'current_time', args: '--all' }], 'PREFLIGHT_ARGS'],
    ['args holding a mapping', [{ tool: 'current_time', args: [{ a: 1 }] }], 'PREFLIGHT_ARGS'],
    ['a command leaving the folder', [{ command: '../other/x.sh' }], 'PREFLIGHT_COMMAND_PATH'],
    ['an absolute command', [{ command: '/bin/sh' }], 'PREFLIGHT_COMMAND_PATH'],
    ['a command that is not in the folder', [{ command: 'scripts/missing.sh' }], 'PREFLIGHT_COMMAND_MISSING'],
    ['a command symlinked outside the folder', [{ command: 'hooks/escape.sh' }], 'PREFLIGHT_COMMAND_OUTSIDE'],
  ])('refuses %s', (_what, preflight, code) => {
    expect(check({ preflight }).errors).toContain(code);
  });

  it('needs a variable step for every {{preflight.X}} in the body', () => {
    expect(check({}, 'Branch: {{preflight.branch}}').errors).toEqual(['PREFLIGHT_UNKNOWN_VARIABLE']);
    expect(check({ preflight: [{ tool: 'current_time', name: 'branch' }] }, 'Branch: {{preflight.branch}}').errors).toEqual([
      'PREFLIGHT_UNKNOWN_VARIABLE',
    ]);
    expect(check({ preflight: [{ tool: 'current_time', name: 'branch', inject: 'variable' }] }, '{{preflight.branch}} {{preflight.branch}}').errors).toEqual([]);
  });

  it('leaves placeholders alone in the spec profile (they are only text there)', () => {
    expect(check({}, 'Branch: {{preflight.branch}}', 'spec').errors).toEqual([]);
  });
});

describe('hooks', () => {
  it('reads a path, a list, and {script, timeout}', () => {
    const result = check({
      hooks: { pre_execute: 'hooks/pre.sh', post_execute: ['hooks/post.sh', { script: './hooks/pre.sh', timeout: 3 }] },
    });
    expect(result.errors).toEqual([]);
    expect(result.hooks).toEqual({
      pre_execute: [{ script: 'hooks/pre.sh' }],
      post_execute: [{ script: 'hooks/post.sh' }, { script: 'hooks/pre.sh', timeout: 3 }],
    });
  });

  it.each<[string, unknown, string]>([
    ['hooks that are a list', ['hooks/pre.sh'], 'HOOKS_INVALID'],
    ['an unknown event', { before_run: 'hooks/pre.sh' }, 'HOOK_UNKNOWN_EVENT'],
    ['a path with ..', { on_error: '../x.sh' }, 'HOOK_PATH'],
    ['a path with .. in the middle', { on_error: 'hooks/../../x.sh' }, 'HOOK_PATH'],
    ['an absolute path', { on_error: '/etc/passwd' }, 'HOOK_PATH'],
    ['a missing file', { on_error: 'hooks/none.sh' }, 'HOOK_MISSING'],
    ['a symlink resolving outside the folder', { on_error: 'hooks/escape.sh' }, 'HOOK_OUTSIDE'],
    ['an empty list', { pre_context: [] }, 'HOOKS_INVALID'],
    ['a bad timeout', { pre_context: { script: 'hooks/pre.sh', timeout: -1 } }, 'HOOKS_INVALID'],
    ['an entry with extra keys', { pre_context: { script: 'hooks/pre.sh', shell: 'bash' } }, 'HOOKS_INVALID'],
  ])('refuses %s', (_what, hooks, code) => {
    expect(check({ hooks }).errors).toContain(code);
  });

  it("warns about and ignores Claude Code's hooks format", () => {
    const result = check({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hi' }] }] },
    });
    expect(result).toMatchObject({ errors: [], warnings: ['HOOKS_CLAUDE_CODE_IGNORED'], hooks: {} });
  });
});
