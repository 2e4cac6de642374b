import { existsSync } from 'node:fs';
import { join } from 'node:path';
import matter from 'gray-matter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSkillMarkdown } from '../../src/skills/frontmatter.ts';
import { codes, indexOne, tempDir, writeFiles } from './helpers.ts';

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.cleanup();
});

function problemCode(text: string): string | undefined {
  const parsed = parseSkillMarkdown(text, '/x/SKILL.md');
  return parsed.ok ? undefined : parsed.problem.code;
}

/** Frontmatter whose evaluation would create `marker`. */
function hostileJs(header: string, marker: string): string {
  return `${header}\n{ name: require('fs').writeFileSync(${JSON.stringify(marker)}, 'pwned') || 'evil', description: 'x' }\n---\nbody\n`;
}

describe('facts about gray-matter that docs/contract.md warns of', () => {
  it('evaluates ---js frontmatter even with engines {js: false}', () => {
    const marker = join(dir.path, 'gray-matter-evaluated');
    matter(hostileJs('---js', marker), { engines: { js: false as never } });
    expect(existsSync(marker)).toBe(true);
  });

  it('caches results by input string, so mutating one result changes the next', () => {
    const text = `---\nname: cached-${Date.now()}\n---\nbody`;
    const first = matter(text);
    first.data['name'] = 'mutated';
    expect(matter(text).data['name']).toBe('mutated');
  });
});

describe('parseSkillMarkdown', () => {
  it.each(['---js', '---javascript', '--- js', '---JavaScript'])('refuses %s frontmatter without evaluating it', async (header) => {
    const marker = join(dir.path, 'never-created');
    await writeFiles(dir.path, { 'evil/SKILL.md': hostileJs(header, marker) });
    const entry = await indexOne(join(dir.path, 'evil'));
    expect(codes(entry).errors).toEqual(['FRONTMATTER_LANGUAGE']);
    expect(existsSync(marker)).toBe(false);
  });

  it.each(['---toml', '---coffee', '---json', '---cson'])('refuses %s frontmatter', (header) => {
    expect(problemCode(`${header}\nname = "x"\n---\nbody`)).toBe('FRONTMATTER_LANGUAGE');
  });

  it('accepts ---yaml and ---yml headers', () => {
    expect(problemCode('---yaml\nname: a\n---\nbody')).toBeUndefined();
    expect(problemCode('---yml\nname: a\n---\nbody')).toBeUndefined();
  });

  it('refuses custom and YAML 1.1 tags instead of reading them as strings', () => {
    expect(problemCode("---\nname: !!js/function 'function () { return 1 }'\n---\n")).toBe('FRONTMATTER_TAG');
    expect(problemCode('---\nname: !custom x\n---\n')).toBe('FRONTMATTER_TAG');
    expect(problemCode('---\ndata: !!binary aGVsbG8=\n---\n')).toBe('FRONTMATTER_TAG');
  });

  it('refuses invalid YAML, duplicate keys, alias bombs and non-mappings', () => {
    expect(problemCode('---\nname: [unclosed\n---\n')).toBe('FRONTMATTER_YAML');
    expect(problemCode('---\nname: a\nname: b\n---\n')).toBe('FRONTMATTER_YAML');
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i += 1) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    expect(problemCode(`---\n${bomb.join('\n')}\n---\n`)).toBe('FRONTMATTER_YAML');
    expect(problemCode('---\na: &a [*a]\n---\n')).toBe('FRONTMATTER_YAML');
    expect(problemCode('---\n- a\n- b\n---\n')).toBe('FRONTMATTER_NOT_MAPPING');
    expect(problemCode('---\n~\n---\n')).toBe('FRONTMATTER_NOT_MAPPING');
  });

  it('needs line-anchored delimiters', () => {
    expect(problemCode('# no frontmatter\n')).toBe('FRONTMATTER_MISSING');
    expect(problemCode('\n---\nname: a\n---\n')).toBe('FRONTMATTER_MISSING');
    expect(problemCode('----\nname: a\n----\n')).toBe('FRONTMATTER_MISSING');
    expect(problemCode('---\nname: a\ndescription: b\n')).toBe('FRONTMATTER_UNCLOSED');
    expect(problemCode('---\nname: a\n---x\ndescription: b\n---\nbody')).toBe('FRONTMATTER_DELIMITER');
    const trailing = parseSkillMarkdown('---\nname: a\n---   \nbody\n', 'SKILL.md');
    expect(trailing).toEqual({ ok: true, data: { name: 'a' }, body: 'body\n' });
  });

  it('tolerates a BOM and CRLF line ends', () => {
    const parsed = parseSkillMarkdown('\uFEFF---\r\nname: crlf\r\ndescription: Works.\r\n---\r\n# Body\r\nline\r\n', 'SKILL.md');
    expect(parsed).toEqual({ ok: true, data: { name: 'crlf', description: 'Works.' }, body: '# Body\nline\n' });
  });

  it('returns fresh data on every call', () => {
    const text = '---\nname: fresh\nmetadata:\n  a: b\n---\nbody';
    const first = parseSkillMarkdown(text, 'SKILL.md');
    if (!first.ok) throw new Error('expected a parse');
    (first.data['metadata'] as Record<string, string>)['a'] = 'changed';
    const second = parseSkillMarkdown(text, 'SKILL.md');
    expect(second.ok && second.data['metadata']).toEqual({ a: 'b' });
  });

  it('names the file in its messages', () => {
    const parsed = parseSkillMarkdown('---js\n{}\n---\n', '/skills/x/SKILL.md');
    expect(parsed.ok ? '' : parsed.problem.message).toMatch(/^\/skills\/x\/SKILL\.md: frontmatter: /);
  });
});
