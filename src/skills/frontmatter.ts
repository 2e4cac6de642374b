// Splitting SKILL.md into YAML frontmatter and markdown body, safely.
//
// gray-matter evaluates `---js` / `---javascript` frontmatter with eval, and `engines: {js: false}` does not
// stop it (the lookup falls through to the `javascript` alias). So the language is checked here before
// gray-matter sees the text, and every non-YAML engine handed to gray-matter throws as a second guard.
// gray-matter caches results by input string: its result is never mutated, the data is cloned.
import matter from 'gray-matter';
import { parseDocument } from 'yaml';
import type { SkillProblem } from './types.ts';

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

function parseYamlSafely(source: string): object {
  // The core schema knows only JSON-like types; custom or YAML 1.1 tags (`!!js/function`, `!!binary`)
  // stay unresolved and are refused rather than read as strings.
  const doc = parseDocument(source, {
    schema: 'core',
    resolveKnownTags: false,
    merge: false,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const error = doc.errors[0];
  if (error) throw new FrontmatterError('FRONTMATTER_YAML', `invalid YAML: ${firstLine(error.message)}`);
  const warning = doc.warnings[0];
  if (warning) {
    const code = warning.code === 'TAG_RESOLVE_FAILED' ? 'FRONTMATTER_TAG' : 'FRONTMATTER_YAML';
    throw new FrontmatterError(code, `refused YAML: ${firstLine(warning.message)}`);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 50 });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FrontmatterError('FRONTMATTER_NOT_MAPPING', 'frontmatter must be a mapping of keys to values');
  }
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
