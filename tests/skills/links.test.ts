// Everything a skill links is reachable from its load_skill envelope: documents SKILL.md links (and those link),
// small ones inlined, large ones and other files listed with sizes; paths written from a plugin's root resolve;
// Claude Code's ${CLAUDE_SKILL_DIR} and ${CLAUDE_PLUGIN_ROOT} read as the skill's /skills/<id>.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderSkillContext } from '../../src/skills/envelope.ts';
import { indexOne, tempDir, writeSkill } from './helpers.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function root(): Promise<string> {
  const dir = await tempDir();
  cleanups.push(dir.cleanup);
  return dir.path;
}

describe('linked files in the envelope', () => {
  it('inlines a forms.md-style document SKILL.md links, and the one it links in turn; lists a big one and a template by size', async () => {
    const body = '# PDF\nTo fill a form, read FORMS.md. For the rest see [the reference](reference.md).';
    const dir = await writeSkill(await root(), 'pdf-forms', undefined, body, {
      'forms.md': '# Forms\nRun `python scripts/fill.py in.pdf out.pdf`; field types are in details/fields.md and the layout in templates/form.html.',
      'details/fields.md': '# Fields\nCheckboxes take /Yes.',
      'reference.md': `# Reference\n${'x'.repeat(20 * 1024)}`,
      'templates/form.html': '<form></form>',
      'unlinked.md': '# Not linked',
      'scripts/fill.py': 'print("filled")\n',
    });
    const skill = (await indexOne(dir))?.skill;
    expect(skill?.scripts).toEqual(['scripts/fill.py']);
    expect(skill?.resources.map((file) => file.path)).toEqual(['details/fields.md', 'forms.md', 'reference.md', 'templates/form.html']);
    const envelope = renderSkillContext(skill!);
    expect(envelope).toContain('<file path="forms.md" bytes="');
    expect(envelope).toContain('Run `python scripts/fill.py in.pdf out.pdf`');
    expect(envelope).toContain('Checkboxes take /Yes.');
    expect(envelope).toMatch(/<file path="reference.md" bytes="20\d\d\d"\/>/);
    expect(envelope).toContain('<file path="templates/form.html" bytes="13"/>');
    expect(envelope).not.toContain('unlinked.md');
    expect(envelope).toContain("2 file(s) of the skill are listed by size only: when the instructions call for one, read it with str_replace_based_edit_tool's view at /skills/pdf-forms/PATH.");
  });

  it('resolves paths written from a plugin root, and reads ${CLAUDE_SKILL_DIR} and ${CLAUDE_PLUGIN_ROOT} as /skills/<id>', async () => {
    const plugin = join(await root(), 'my-plugin');
    const body = [
      '# Brainstorm',
      'For the visual companion read `skills/brainstorm/companion.md`.',
      'Check the notes with `${CLAUDE_SKILL_DIR}/scripts/check.sh` and `${CLAUDE_PLUGIN_ROOT}/skills/brainstorm/scripts/lint.sh`.',
    ].join('\n');
    const dir = await writeSkill(join(plugin, 'skills'), 'brainstorm', undefined, body, {
      'companion.md': '# Companion\nStart it with `scripts/serve.sh --port 8000`.',
      'scripts/serve.sh': '#!/bin/sh\necho serving\n',
      'scripts/check.sh': '#!/bin/sh\necho ok\n',
      'scripts/lint.sh': '#!/bin/sh\necho ok\n',
      'scripts/unnamed.sh': '#!/bin/sh\necho no\n',
    });
    const skill = (await indexOne(dir))?.skill;
    expect(skill?.scripts).toEqual(['scripts/check.sh', 'scripts/lint.sh', 'scripts/serve.sh']);
    const envelope = renderSkillContext(skill!);
    expect(envelope).toContain('Start it with `scripts/serve.sh --port 8000`.');
    expect(envelope).toContain('Check the notes with `/skills/brainstorm/scripts/check.sh` and `/skills/brainstorm/scripts/lint.sh`.');
    expect(envelope).not.toContain('CLAUDE_');
  });

  it('keeps an envelope light: inlined text within 8 KiB in all, never HTML or assets, and a bounded listing that counts the rest', async () => {
    const body = '# Big\nRead references/a.md, references/b.md and references/c.md; the viewer is viewer.html; see also assets/readme.md.';
    const files: Record<string, string> = {
      'references/a.md': `# A\n${'a'.repeat(3_000)}`,
      'references/b.md': `# B\n${'b'.repeat(3_000)}`,
      'references/c.md': `# C\n${'c'.repeat(3_000)}`,
      'viewer.html': `<html>${'v'.repeat(500)}</html>`,
      'assets/readme.md': '# Template notes',
    };
    for (let i = 0; i < 300; i += 1) files[`assets/fonts/${'font-family-name-'.repeat(4)}${String(i).padStart(3, '0')}.ttf`] = 'x';
    const skill = (await indexOne(await writeSkill(await root(), 'big', undefined, body, files)))?.skill;
    const envelope = renderSkillContext(skill!);
    const inlined = skill!.resources.filter((file) => file.text !== undefined).map((file) => file.path);
    expect(inlined).toEqual(['references/a.md', 'references/b.md']);
    expect(envelope).toMatch(/<file path="references\/c.md" bytes="3004"\/>/);
    expect(envelope).toContain('<file path="viewer.html" bytes="');
    expect(envelope).not.toContain('vvvv');
    expect(envelope).not.toContain('Template notes');
    expect(envelope.length - body.length).toBeLessThan(12_000);
    const unlisted = skill!.unlistedFiles ?? 0;
    expect(unlisted).toBeGreaterThan(250);
    expect(envelope).toContain(`<reference_files unlisted="${unlisted}">`);
    expect(envelope).toContain(`${unlisted} more file(s) are not listed: view /skills/big (or a folder in it) to see them.`);
  });
});
