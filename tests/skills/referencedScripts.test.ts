// Which scripts the instructions reach: SKILL.md, and the markdown files it names, and so on.
import { describe, expect, it } from 'vitest';
import { referencedScripts } from '../../src/skills/indexSkill.ts';

const files = (markdown: Record<string, string>, scripts: string[]) => [
  ...Object.entries(markdown).map(([path, text]) => ({ path, markdown: text })),
  ...scripts.map((path) => ({ path })),
];

describe('referenced scripts', () => {
  it('reach through a linked document named in another case, and through its own links, but not to unlinked ones', () => {
    const folder = files(
      {
        'forms.md': 'Run `python scripts/fill.py <in.pdf> <out.pdf>`; for boxes see references/boxes.md.',
        'references/boxes.md': 'Check with `../scripts/check_boxes.py`.',
        'orphan.md': 'Run scripts/orphan.py.',
      },
      ['scripts/fill.py', 'scripts/check_boxes.py', 'scripts/orphan.py', 'scripts/unnamed.py'],
    );
    expect(referencedScripts(folder, 'If you need to fill out a form, read FORMS.md and follow it.')).toEqual(['scripts/check_boxes.py', 'scripts/fill.py']);
  });

  it('a script may be named without its extension, or as a Python module', () => {
    const folder = files({}, ['scripts/check_fields.py', 'scripts/package_skill.py', 'scripts/other.py']);
    expect(referencedScripts(folder, 'Run `python scripts/check_fields <file.pdf>`, then `python -m scripts.package_skill <dir>`.')).toEqual([
      'scripts/check_fields.py',
      'scripts/package_skill.py',
    ]);
  });

  it('a script is named exactly: another case or a longer name does not count', () => {
    expect(referencedScripts(files({}, ['scripts/run.sh']), 'Run SCRIPTS/RUN.SH or scripts/run.sh.bak')).toEqual([]);
  });

  it('a data file in scripts/ is never a script, however it is named: requirements.txt, a template, a schema', () => {
    const folder = files({}, ['scripts/requirements.txt', 'scripts/page.html', 'scripts/schema.json', 'scripts/build.py']);
    const body = 'First `pip install -r scripts/requirements.txt`, then run `python scripts/build.py` with scripts/page.html and scripts/schema.json.';
    expect(referencedScripts(folder, body)).toEqual(['scripts/build.py']);
  });
});
