import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandOutput } from '../../src/ops/commandOutput.ts';
import { runSkillsCommand } from '../../src/cli/skillsCommands.ts';
import { tempDir, writeFiles, writeSkill } from './helpers.ts';

const SHIPPED = join(import.meta.dirname, '..', '..', 'skills');

let tmp: { path: string; cleanup: () => Promise<void> };
let root: string;
beforeEach(async () => {
  tmp = await tempDir();
  root = join(tmp.path, 'skills');
  await mkdir(root);
});
afterEach(async () => {
  await tmp.cleanup();
});

async function run(args: string[], skillsDirs: string[] = [root]) {
  const out: string[] = [];
  const err: string[] = [];
  const output: CommandOutput = { out: (text) => void out.push(text), err: (text) => void err.push(text) };
  const code = await runSkillsCommand(args, { skillsDirs, output });
  return { code, out: out.join('\n'), err };
}

describe('skills validate', () => {
  it('exits 0 when every skill is valid', async () => {
    await writeSkill(root, 'good');
    const result = await run(['validate']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('1 skill(s): 1 valid, 0 invalid');
  });

  it('prints the documented JSON shape and exits 1 when a skill is invalid', async () => {
    await writeSkill(root, 'good');
    await writeSkill(root, 'bad', 'name: Bad\ndescription: x');
    const result = await run(['validate', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as unknown;
    expect(report).toEqual({
      skills: [
        {
          id: 'Bad',
          path: join(root, 'bad'),
          valid: false,
          errors: [{ code: 'NAME_CHARS', message: expect.stringContaining('SKILL.md: name:') }],
          warnings: [],
        },
        { id: 'good', path: join(root, 'good'), valid: true, errors: [], warnings: [] },
      ],
      summary: { total: 2, valid: 1, invalid: 1 },
    });
  });

  it('applies the spec profile with --strict', async () => {
    await writeSkill(root, 'extended', 'name: extended\ndescription: x\ntriggers: [deploy]');
    expect((await run(['validate'])).code).toBe(0);
    const strict = await run(['validate', '--strict', '--json']);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.out).skills[0].errors[0].code).toBe('UNKNOWN_KEY');
  });

  it('takes skill folders and roots as DIR arguments', async () => {
    const one = await writeSkill(join(tmp.path, 'elsewhere'), 'single');
    await writeSkill(root, 'in-root');
    const result = await run(['validate', '--json', one, root], []);
    expect(JSON.parse(result.out).skills.map((s: { id: string }) => s.id)).toEqual(['single', 'in-root']);
    expect(result.code).toBe(0);
  });

  it('warns about a name used twice across the given roots', async () => {
    const second = join(tmp.path, 'second');
    await writeSkill(root, 'twin');
    await writeSkill(second, 'twin');
    const result = await run(['validate', '--json', root, second]);
    expect(JSON.parse(result.out).skills[1].warnings[0].code).toBe('DUPLICATE_ID');
  });

  it('exits 2 for a DIR that does not exist, and 1 for one without skills', async () => {
    const missing = await run(['validate', join(tmp.path, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toEqual([expect.stringMatching(/^skillbot skills validate: cannot read .*nope/)]);
    const empty = await run(['validate', root]);
    expect(empty.code).toBe(1);
    expect(empty.err).toEqual([expect.stringContaining('no SKILL.md found')]);
  });

  it('passes the shipped example skills, strictly unless they show an extension', async () => {
    const runtime = await run(['validate', '--json', SHIPPED]);
    expect(runtime.code).toBe(0);
    const strict = JSON.parse((await run(['validate', '--strict', '--json', SHIPPED])).out) as {
      skills: Array<{ id: string; valid: boolean; errors: Array<{ code: string; message: string }> }>;
    };
    expect(strict.skills.length).toBeGreaterThanOrEqual(3);
    expect(strict.skills.filter((s) => s.valid).map((s) => s.id)).toEqual(expect.arrayContaining(['csv-summary', 'release-notes']));
    // A skill may fail --strict only for using one of our extensions.
    for (const skill of strict.skills.filter((s) => !s.valid)) {
      for (const error of skill.errors) expect(error.message).toMatch(/: (triggers|preflight|hooks|run-on-load): is not an Agent Skills field/);
    }
  });
});

describe('skills list, show and catalog', () => {
  beforeEach(async () => {
    await writeSkill(root, 'alpha', 'name: alpha\ndescription: First skill.', 'Read references/a.md.', { 'references/a.md': 'A text.' });
    await writeSkill(root, 'hidden', 'name: hidden\ndescription: Only by hand.\ndisable-model-invocation: true');
    await writeFiles(root, { 'broken/SKILL.md': 'no frontmatter' });
  });

  it('lists skills, and invalid ones on stderr', async () => {
    const result = await run(['list']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^alpha\s+First skill\./m);
    expect(result.out).toMatch(/^hidden\s+Only by hand\.\s+\[hidden from model\]/m);
    expect(result.err).toEqual([expect.stringContaining('1 invalid skill(s) not loaded (broken)')]);
  });

  it('lists as JSON', async () => {
    const result = await run(['list', '--json']);
    const parsed = JSON.parse(result.out);
    expect(parsed.skills.map((s: { id: string }) => s.id)).toEqual(['alpha', 'hidden']);
    expect(parsed.skills[0]).toMatchObject({ id: 'alpha', path: join(root, 'alpha'), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(parsed.invalid[0]).toMatchObject({ id: 'broken', errors: [{ code: 'FRONTMATTER_MISSING' }] });
  });

  it('shows the load_skill envelope, and the closest ids for an unknown id', async () => {
    const shown = await run(['show', 'alpha']);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^<skill_context skill="alpha" status="loaded">/);
    expect(shown.out).toContain('A text.');
    const unknown = await run(['show', 'alpah']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toEqual(['skillbot skills show: no skill "alpah"; did you mean alpha?']);
  });

  it('prints the catalog without hidden skills, with a summary on stderr', async () => {
    const result = await run(['catalog']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('alpha: First skill.');
    expect(result.out).not.toContain('hidden');
    expect(result.err[0]).toMatch(/^catalog: 1 skill\(s\), \d+ characters, 1 hidden by disable-model-invocation$/);
  });
});

describe('skills match', () => {
  it('is handed to trigger matching', async () => {
    await writeSkill(root, 'deployer', 'name: deployer\ndescription: Deploys.\ntriggers: [deploy]');
    const result = await run(['match', 'please', 'deploy', 'it']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('deployer');
  });
});

describe('usage errors', () => {
  it.each<[string[], RegExp]>([
    [[], /^skillbot skills: missing subcommand\. Usage: /],
    [['bogus'], /^skillbot skills: unknown subcommand "bogus"\. Usage: /],
    [['validate', '--fast'], /^skillbot skills validate: unknown option --fast \(known options: --strict, --json\)\. Usage: /],
    [['show'], /^skillbot skills show: missing skill ID/],
    [['show', 'a', 'b'], /^skillbot skills show: unexpected argument "b"/],
    [['list', '--strict'], /^skillbot skills list: unknown option --strict/],
    [['catalog', 'x'], /^skillbot skills catalog: unexpected argument "x"/],
  ])('exit 2 with one line for %j', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(message);
  });

  it('prints help with exit 0', async () => {
    const result = await run(['validate', '--help']);
    expect(result).toMatchObject({ code: 0, out: 'Usage: skillbot skills validate [--strict] [--json] [DIR...]' });
  });
});
