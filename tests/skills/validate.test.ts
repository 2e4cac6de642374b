import { describe, expect, it } from 'vitest';
import type { FolderFacts } from '../../src/skills/extensions.ts';
import type { Profile } from '../../src/skills/types.ts';
import { validateFrontmatter } from '../../src/skills/validate.ts';

const FOLDER: FolderFacts = {
  files: new Set(['SKILL.md', 'scripts/check.sh', 'hooks/pre.sh', 'hooks/post.sh']),
  outsideLinks: new Set(['hooks/escape.sh']),
};

function check(data: Record<string, unknown>, profile: Profile, body = 'Body.', folderName = 'my-skill') {
  const result = validateFrontmatter({ data, body, file: '/skills/my-skill/SKILL.md', folderName, folder: FOLDER, profile });
  return { ...result, errors: result.errors.map((p) => p.code), warnings: result.warnings.map((p) => p.code) };
}

const base = { name: 'my-skill', description: 'Does the thing when asked.' };

/** [what, frontmatter, runtime {errors, warnings}, spec {errors, warnings}] */
type Expected = { errors?: string[]; warnings?: string[] };
const CASES: Array<[string, Record<string, unknown>, Expected, Expected]> = [
  ['a minimal skill', base, {}, {}],
  [
    'every specification field',
    { ...base, license: 'MIT', compatibility: 'Needs git.', metadata: { author: 'me', version: '1.0' }, 'allowed-tools': 'Bash(git:*) Read' },
    {},
    {},
  ],
  // Claude Code takes the folder's name and the body's first paragraph; so does runtime, with a warning.
  ['a missing name', { description: 'x' }, { warnings: ['NAME_DERIVED'] }, { errors: ['NAME_MISSING'] }],
  ['a name that is not a string', { ...base, name: 12 }, { errors: ['NAME_TYPE'] }, { errors: ['NAME_TYPE'] }],
  ['an empty name', { ...base, name: '' }, { errors: ['NAME_LENGTH'] }, { errors: ['NAME_LENGTH'] }],
  ['a 65-character name', { ...base, name: 'a'.repeat(65) }, { errors: ['NAME_LENGTH'] }, { errors: ['NAME_LENGTH'] }],
  ['uppercase in the name', { ...base, name: 'My-Skill' }, { errors: ['NAME_CHARS'] }, { errors: ['NAME_CHARS'] }],
  ['an underscore in the name', { ...base, name: 'my_skill' }, { errors: ['NAME_CHARS'] }, { errors: ['NAME_CHARS'] }],
  ['a leading hyphen', { ...base, name: '-my-skill' }, { errors: ['NAME_HYPHENS'] }, { errors: ['NAME_HYPHENS'] }],
  ['a trailing hyphen', { ...base, name: 'my-skill-' }, { errors: ['NAME_HYPHENS'] }, { errors: ['NAME_HYPHENS'] }],
  ['a double hyphen', { ...base, name: 'my--skill' }, { errors: ['NAME_HYPHENS'] }, { errors: ['NAME_HYPHENS'] }],
  ['a name differing from its folder', { ...base, name: 'other-skill' }, { warnings: ['NAME_FOLDER_MISMATCH'] }, { errors: ['NAME_FOLDER_MISMATCH'] }],
  ['a missing description', { name: 'my-skill' }, { warnings: ['DESCRIPTION_DERIVED'] }, { errors: ['DESCRIPTION_MISSING'] }],
  ['a description that is a list', { ...base, description: ['a'] }, { errors: ['DESCRIPTION_TYPE'] }, { errors: ['DESCRIPTION_TYPE'] }],
  ['a blank description', { ...base, description: '  \n ' }, { errors: ['DESCRIPTION_BLANK'] }, { errors: ['DESCRIPTION_BLANK'] }],
  ['a 1,025-character description', { ...base, description: 'd'.repeat(1025) }, { warnings: ['DESCRIPTION_LENGTH'] }, { errors: ['DESCRIPTION_LENGTH'] }],
  // Limits count code points: 1,024 emoji are 2,048 UTF-16 units and still fit.
  ['1,024 emoji in the description', { ...base, description: '🙂'.repeat(1024) }, {}, {}],
  ['a licence that is a number', { ...base, license: 2 }, { warnings: ['LICENSE_TYPE'] }, { errors: ['LICENSE_TYPE'] }],
  ['a 501-character compatibility', { ...base, compatibility: 'c'.repeat(501) }, { warnings: ['COMPATIBILITY_LENGTH'] }, { errors: ['COMPATIBILITY_LENGTH'] }],
  ['an empty compatibility', { ...base, compatibility: '' }, { warnings: ['COMPATIBILITY_LENGTH'] }, { errors: ['COMPATIBILITY_LENGTH'] }],
  ['metadata that is a list', { ...base, metadata: ['a'] }, { warnings: ['METADATA_TYPE'] }, { errors: ['METADATA_TYPE'] }],
  ['a metadata value that is a number', { ...base, metadata: { version: 1.5 } }, { warnings: ['METADATA_TYPE'] }, { errors: ['METADATA_TYPE'] }],
  ['allowed-tools as a list', { ...base, 'allowed-tools': ['Read', 'Bash'] }, { warnings: ['ALLOWED_TOOLS_TYPE'] }, { errors: ['ALLOWED_TOOLS_TYPE'] }],
  ['allowed-tools as a number', { ...base, 'allowed-tools': 3 }, { warnings: ['ALLOWED_TOOLS_TYPE'] }, { errors: ['ALLOWED_TOOLS_TYPE'] }],
  ['an unknown key', { ...base, colour: 'blue' }, { warnings: ['UNKNOWN_KEY'] }, { errors: ['UNKNOWN_KEY'] }],
  [
    "Claude Code's keys",
    { ...base, 'disable-model-invocation': true, 'user-invocable': false, 'argument-hint': '[file]', model: 'sonnet' },
    {},
    { errors: ['UNKNOWN_KEY', 'UNKNOWN_KEY', 'UNKNOWN_KEY', 'UNKNOWN_KEY'] },
  ],
  [
    "Claude Code's newer keys",
    { ...base, when_to_use: 'When the user asks.', effort: 'high', paths: ['src/**/*.ts'], shell: 'bash' },
    {},
    { errors: ['UNKNOWN_KEY', 'UNKNOWN_KEY', 'UNKNOWN_KEY', 'UNKNOWN_KEY'] },
  ],
  ['paths that is a number', { ...base, paths: 3 }, { warnings: ['FIELD_TYPE'] }, { errors: ['UNKNOWN_KEY'] }],
  ['disable-model-invocation that is not a boolean', { ...base, 'disable-model-invocation': 'yes' }, { errors: ['FIELD_TYPE'] }, { errors: ['UNKNOWN_KEY'] }],
  ['argument-hint that is not a string', { ...base, 'argument-hint': 5 }, { warnings: ['FIELD_TYPE'] }, { errors: ['UNKNOWN_KEY'] }],
  ['our extensions', { ...base, triggers: ['deploy'], preflight: [{ tool: 'current_time' }], hooks: { pre_execute: 'hooks/pre.sh' } }, {}, { errors: ['UNKNOWN_KEY', 'UNKNOWN_KEY', 'UNKNOWN_KEY'] }],
];

describe.each(['runtime', 'spec'] as const)('the %s profile', (profile) => {
  it.each(CASES)('judges %s', (_what, data, runtime, spec) => {
    const expected = profile === 'runtime' ? runtime : spec;
    const result = check(data, profile);
    expect({ errors: result.errors, warnings: result.warnings }).toEqual({ errors: expected.errors ?? [], warnings: expected.warnings ?? [] });
  });
});

describe('as Claude Code derives and lists them', () => {
  it('appends when_to_use to the description', () => {
    expect(check({ ...base, when_to_use: 'Use when a release is cut.' }, 'runtime').description).toBe('Does the thing when asked. Use when a release is cut.');
  });

  it("takes an absent description from the body's first prose paragraph, and an absent name from the folder", () => {
    const body = '# Release notes\n\nGroup commits into Features\nand Fixes.\n\n- a list item\n';
    const result = check({}, 'runtime', body, 'release-notes');
    expect(result.name).toBe('release-notes');
    expect(result.description).toBe('Group commits into Features and Fixes.');
    expect(result.errors).toEqual([]);
  });

  it('still fails when the folder name is not a valid name or the body has no paragraph', () => {
    expect(check({ description: 'x' }, 'runtime', 'Body.', 'My Skill').errors).toEqual(['NAME_CHARS']);
    expect(check({ name: 'my-skill' }, 'runtime', '# Only a heading\n').errors).toEqual(['DESCRIPTION_MISSING']);
  });
});

describe('names', () => {
  it('accepts lowercase letters beyond ASCII, and digits', () => {
    expect(check({ ...base, name: 'café-2' }, 'spec', 'Body.', 'café-2').errors).toEqual([]);
  });

  it('accepts a 64-character name equal to its folder', () => {
    const name = 'a'.repeat(64);
    expect(check({ ...base, name }, 'spec', 'Body.', name).errors).toEqual([]);
  });
});

describe('messages', () => {
  it('name the file and the field', () => {
    const result = validateFrontmatter({
      data: { ...base, name: 'Bad' },
      body: '',
      file: '/skills/my-skill/SKILL.md',
      folderName: 'my-skill',
      folder: FOLDER,
      profile: 'spec',
    });
    expect(result.errors[0]?.message).toMatch(/^\/skills\/my-skill\/SKILL\.md: name: /);
  });
});

describe('disable-model-invocation', () => {
  it('is carried to the skill', () => {
    expect(check({ ...base, 'disable-model-invocation': true }, 'runtime').disableModelInvocation).toBe(true);
    expect(check(base, 'runtime').disableModelInvocation).toBe(false);
  });
});
