import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandOutput } from '../../src/ops/commandOutput.ts';
import { runMatchCommand } from '../../src/cli/matchCommand.ts';
import { writeSkill } from '../lifecycle/engineHarness.ts';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbot-match-'));
  await writeSkill(root, { name: 'code-review', frontmatter: 'triggers: ["code review", "review"]\n', body: 'Review code.' });
  await writeSkill(root, { name: 'git-help', frontmatter: 'triggers: ["git"]\n', body: 'Git help.' });
  await writeSkill(root, { name: 'deploy-prod', frontmatter: 'triggers: ["deploy"]\ndisable-model-invocation: true\n', body: 'Deploy.' });
  await writeSkill(root, { name: 'no-triggers', body: 'Nothing to match.' });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function capture(): CommandOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => void stdout.push(text), err: (text) => void stderr.push(text) };
}

describe('skillbot skills match', () => {
  it('prints the skills a message would activate, with scores and matched phrases, as JSON', async () => {
    const output = capture();
    const code = await runMatchCommand(['please', 'do a Code Review of the git branch, then deploy', '--json'], { skillsDirs: [root], output });
    expect(code).toBe(0);
    const result = JSON.parse(output.stdout.join('')) as { text: string; max: number; matches: unknown[] };
    expect(result.text).toBe('please do a Code Review of the git branch, then deploy');
    expect(result.max).toBe(3);
    expect(result.matches).toEqual([
      { id: 'code-review', score: 3, matched: ['code review', 'review'], activates: true },
      { id: 'deploy-prod', score: 1, matched: ['deploy'], activates: false, reason: 'disable-model-invocation' },
      { id: 'git-help', score: 1, matched: ['git'], activates: true },
    ]);
  });

  it('explains in plain text why a matching skill would not activate', async () => {
    const output = capture();
    const code = await runMatchCommand(['review the git log and deploy', '--max', '1'], { skillsDirs: [root], output });
    expect(code).toBe(0);
    const text = output.stdout.join('\n');
    expect(text).toContain('Would activate (best first, at most 1):');
    expect(text).toMatch(/code-review {2}score 1 {2}matched "review"/);
    expect(text).toMatch(/git-help .*beyond the limit of 1/);
    expect(text).toMatch(/deploy-prod .*disable-model-invocation: true/);
  });

  it('says so when nothing matches, and takes the limit from the config when given', async () => {
    const output = capture();
    expect(await runMatchCommand(['the latest github tissue'], { skillsDirs: [root], output, maxTriggeredSkills: 5 })).toBe(0);
    expect(output.stdout.join('\n')).toContain("No skill's triggers match (3 skill(s) declare triggers).");
    const json = capture();
    await runMatchCommand(['git', '--json'], { skillsDirs: [root], output: json, maxTriggeredSkills: 5 });
    expect((JSON.parse(json.stdout.join('')) as { max: number }).max).toBe(5);
  });

  it('refuses bad usage with exit code 2 and one line on stderr', async () => {
    for (const args of [[], ['   '], ['text', '--max', 'lots'], ['text', '--unknown']]) {
      const output = capture();
      expect(await runMatchCommand(args, { skillsDirs: [root], output })).toBe(2);
      expect(output.stderr).toHaveLength(1);
      expect(output.stderr[0]).toMatch(/^skillbot skills match: /);
      expect(output.stdout).toEqual([]);
    }
  });
});
