// The house's floors and its no-circle rule (.dependency-cruiser.cjs, docs/architecture.md), run inside `npm test`:
// a failure names each import that broke a rule, and the rule.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const root = path.resolve(import.meta.dirname, '../..');
const options = await extractDepcruiseOptions(path.join(root, '.dependency-cruiser.cjs'));

/** One line per broken rule: which import (or circle) broke which rule, and what the rule says. */
function brokenRules(result: ICruiseResult): string[] {
  // A floor's first rule says what the floor may not do (the others of its name are its written exceptions).
  const comments = new Map([...(options.ruleSet?.forbidden ?? [])].reverse().map((rule) => [rule.name, rule.comment]));
  return result.summary.violations.map((violation) => {
    const where = violation.cycle === undefined ? `${violation.from} -> ${violation.to}` : [violation.from, ...violation.cycle.map((step) => step.name)].join(' -> ');
    return `${where} breaks ${violation.rule.name}: ${comments.get(violation.rule.name) ?? ''}`;
  });
}

async function cruiseIn(baseDir: string, cruiseOptions: ICruiseOptions): Promise<ICruiseResult> {
  const previous = process.cwd();
  process.chdir(baseDir); // the rules' paths are relative to the folder cruised from
  try {
    const { output } = await cruise(['src', 'adapters'], { ...cruiseOptions, validate: true, baseDir });
    return output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
}

describe('the floors of the house', () => {
  it('no import circle, no import up a floor beyond the written exceptions', { timeout: 120_000 }, async () => {
    const result = await cruiseIn(root, options);
    expect(result.summary.totalCruised).toBeGreaterThan(300); // it read the project, not an empty folder
    expect(brokenRules(result)).toEqual([]);
  });

  it('each allowed upward import has its reason in docs/architecture.md, and there are at most three', () => {
    const allowed = new Set((options.ruleSet?.forbidden ?? []).flatMap((rule) => /allowed: (\S+ -> [^\s,]+)/.exec(rule.comment ?? '')?.[1] ?? []));
    expect(allowed.size).toBeGreaterThan(0);
    expect(allowed.size).toBeLessThanOrEqual(3);
    const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
    for (const exception of allowed) {
      const target = exception.split(' -> ')[1]!.replace(/\\/g, '');
      expect(doc, `docs/architecture.md gives the reason for ${exception}`).toMatch(new RegExp(`allowed upward import.*\`${target.replace(/\./g, '\\.')}\``, 'i'));
    }
  });

  describe('the rules catch what they are for', () => {
    const fixture = mkdtempSync(path.join(tmpdir(), 'skillbot-floors-'));
    afterAll(() => rmSync(fixture, { recursive: true, force: true }));
    const write = (file: string, text: string): void => {
      mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      writeFileSync(path.join(fixture, file), text);
    };

    it('an import up a floor and a three-file circle are each named with the rule they break', { timeout: 60_000 }, async () => {
      write('src/text/words.ts', 'export const words = 1;\n');
      write('src/ops/log.ts', "import { store } from '../store/types.ts';\nimport { words } from '../text/words.ts';\nexport const log = store + words;\n");
      write('src/store/types.ts', 'export const store = 1;\n');
      write('adapters/slack/a.ts', "import { b } from './b.ts';\nexport const a = b;\n");
      write('adapters/slack/b.ts', "import { c } from './c.ts';\nexport const b = c;\n");
      write('adapters/slack/c.ts', "import type { a } from './a.ts';\nexport const c: typeof a = 1;\n");
      const { tsConfig: _projectOnly, ...rules } = options;
      const broken = brokenRules(await cruiseIn(fixture, rules));
      expect(broken).toContainEqual(expect.stringMatching(/^src\/ops\/log\.ts -> src\/store\/types\.ts breaks floor-ops: /));
      expect(broken).toContainEqual(expect.stringMatching(/adapters\/slack\/.\.ts -> .* breaks no-circular/));
      expect(broken.join('\n')).not.toContain('-> src/text/words.ts'); // a floor may import any floor below
    });
  });
});
