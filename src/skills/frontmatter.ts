// Splitting SKILL.md into YAML frontmatter and markdown body, safely.
//
// gray-matter evaluates `---js` / `---javascript` frontmatter with eval, and `engines: {js: false}` does not
// stop it (the lookup falls through to the `javascript` alias). So the language is checked here before
// gray-matter sees the text, and every non-YAML engine handed to gray-matter throws as a second guard.
// gray-matter caches results by input string: its result is never mutated, the data is cloned.
//
// The YAML loader is js-yaml 3, the one gray-matter itself depends on, with its CORE schema (JSON-like
// types only; `!!js/function`, `!!binary` or any custom tag is an error). The `yaml` package parses the same
// documents 5-8 times slower, which made it the largest cost of indexing 10,000 skills.
import { createRequire } from 'node:module';
import matter from 'gray-matter';
import type { SkillProblem } from './types.ts';

interface JsYaml {
  safeLoad(source: string, options: { schema: unknown; filename?: string }): unknown;
  CORE_SCHEMA: unknown;
}
/** js-yaml 3, the major gray-matter 4 itself uses (declared in package.json; its safe CORE schema). */
const jsYaml = createRequire(import.meta.url)('js-yaml') as JsYaml;

/** Values a frontmatter may expand to through aliases; more is refused (an alias bomb). */
const MAX_VALUES = 10_000;

export type ParsedSkillMarkdown =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; problem: SkillProblem };

/** A failure raised inside a gray-matter engine, carried out with its stable code. */
class FrontmatterError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const YAML_LANGUAGES = new Set(['', 'yaml', 'yml']);
const OPENING = /^---([^\n]*)\n/;
const CLOSING = /^---[ \t]*$/m;

function refuseEngine(language: string) {
  return (): object => {
    throw new FrontmatterError('FRONTMATTER_LANGUAGE', `${language} frontmatter is never evaluated`);
  };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

/**
 * Refuse values that aliases make cyclic or huge: js-yaml shares aliased nodes, so a small document can
 * stand for billions of values, and anything that walks it (messages, JSON output) would never finish.
 */
function checkSize(value: unknown): void {
  let count = 0;
  const inside = new Set<object>();
  const visit = (node: unknown): void => {
    count += 1;
    if (count > MAX_VALUES) throw new FrontmatterError('FRONTMATTER_YAML', `aliases expand to more than ${MAX_VALUES} values`);
    if (typeof node !== 'object' || node === null) return;
    if (inside.has(node)) throw new FrontmatterError('FRONTMATTER_YAML', 'an alias refers to a value that holds it');
    inside.add(node);
    for (const child of Object.values(node)) visit(child);
    inside.delete(node);
  };
  visit(value);
}

function parseYamlSafely(source: string): object {
  let value: unknown;
  try {
    value = jsYaml.safeLoad(source, { schema: jsYaml.CORE_SCHEMA });
  } catch (err) {
    const message = firstLine(err instanceof Error ? err.message : String(err));
    if (/unknown tag/.test(message)) throw new FrontmatterError('FRONTMATTER_TAG', `refused YAML: ${message}`);
    throw new FrontmatterError('FRONTMATTER_YAML', `invalid YAML: ${message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FrontmatterError('FRONTMATTER_NOT_MAPPING', 'frontmatter must be a mapping of keys to values');
  }
  checkSize(value);
  return value;
}

const ENGINES = {
  yaml: { parse: parseYamlSafely },
  yml: { parse: parseYamlSafely },
  js: refuseEngine('JavaScript'),
  javascript: refuseEngine('JavaScript'),
  json: refuseEngine('JSON'),
  coffee: refuseEngine('CoffeeScript'),
  coffeescript: refuseEngine('CoffeeScript'),
  cson: refuseEngine('CSON'),
  toml: refuseEngine('TOML'),
};

/** Parse the text of a SKILL.md (`file` names it in messages). Never throws, never evaluates code. */
export function parseSkillMarkdown(raw: string, file: string): ParsedSkillMarkdown {
  const fail = (code: string, message: string): ParsedSkillMarkdown => ({
    ok: false,
    problem: { code, message: `${file}: frontmatter: ${message}` },
  });
  const text = (raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw).replace(/\r\n/g, '\n');
  const opening = OPENING.exec(text);
  if (!opening || opening[1]?.startsWith('-')) {
    return fail('FRONTMATTER_MISSING', 'SKILL.md must start with a line holding only --- (YAML frontmatter)');
  }
  const language = (opening[1] ?? '').trim();
  if (!YAML_LANGUAGES.has(language.toLowerCase())) {
    return fail('FRONTMATTER_LANGUAGE', `only YAML frontmatter is accepted, found ---${language} (never evaluated)`);
  }
  const afterOpening = opening[0].length;
  const closing = CLOSING.exec(text.slice(afterOpening));
  if (!closing) return fail('FRONTMATTER_UNCLOSED', 'no closing line holding only --- after the frontmatter');
  const closeStart = afterOpening + closing.index;

  let split: matter.GrayMatterFile<string>;
  try {
    // Options are always passed, so gray-matter neither reads nor fills its cache.
    split = matter(text, { language: 'yaml', engines: ENGINES });
  } catch (err) {
    if (err instanceof FrontmatterError) return fail(err.code, err.message);
    return fail('FRONTMATTER_YAML', `invalid YAML: ${firstLine(err instanceof Error ? err.message : String(err))}`);
  }
  // gray-matter ends the block at the first "\n---" even mid-line; accept only the line-anchored split.
  const expectedBlock = text.slice(3 + (opening[1] ?? '').length, Math.max(closeStart - 1, afterOpening - 1));
  if (split.matter !== expectedBlock) {
    return fail('FRONTMATTER_DELIMITER', 'a line inside the frontmatter starts with ---; quote or indent it');
  }
  const data = structuredClone(split.data) as Record<string, unknown>;
  const body = split.content.replace(/^[ \t]+(?:\n|$)/, '');
  return { ok: true, data, body };
}
