// Skills written for Claude Code work unchanged: arguments, user-invocable, disable-model-invocation,
// argument-hint, allowed-tools, and the roots Claude Code keeps them in (project, plugin, marketplace).
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandOutput } from '../../src/ops/commandOutput.ts';
import { splitArguments, substituteArguments } from '../../src/lifecycle/substitution.ts';
import { runSkillsCommand } from '../../src/cli/skillsCommands.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { lastToolResult, textReply, toolUseReply, type RequestMessage } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';
import { tempDir, writeFiles, writeSkill } from './helpers.ts';

describe('$ARGUMENTS, $ARGUMENTS[N] and $N as Claude Code substitutes them', () => {
  it('puts the words as typed in $ARGUMENTS and the shell-split words in $N and $ARGUMENTS[N]', () => {
    const body = 'Notes for $ARGUMENTS. Version $0, audience $ARGUMENTS[1], tone $1.';
    expect(substituteArguments(body, 'v1.2 "the whole team"')).toBe(
      'Notes for v1.2 "the whole team". Version v1.2, audience the whole team, tone the whole team.',
    );
  });

  it('appends ARGUMENTS: … when the skill names no placeholder, and nothing when no words were given', () => {
    expect(substituteArguments('Draft the notes.\n', 'v1.2')).toBe('Draft the notes.\n\nARGUMENTS: v1.2\n');
    expect(substituteArguments('Draft the notes.\n', '  ')).toBe('Draft the notes.\n');
    expect(substituteArguments('For $ARGUMENTS.', '')).toBe('For .');
  });

  it('leaves a $N past the last word as written and never rescans what it inserted', () => {
    expect(substituteArguments('a=$0 b=$2', 'x')).toBe('a=x b=$2');
    expect(substituteArguments('$ARGUMENTS', '$0 $ARGUMENTS')).toBe('$0 $ARGUMENTS');
    expect(splitArguments(`one 'two three' "four \\"five\\""`)).toEqual(['one', 'two three', 'four "five"']);
  });
});

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The model asks for a skill, then answers with what load_skill gave it. */
const loadThenEcho = (id: string) => (req: { messages: RequestMessage[] }) => {
  const result = lastToolResult(req);
  return result ? textReply(result.content) : toolUseReply('load_skill', { skill_id: id });
};

function texts(messages: readonly RequestMessage[]): string {
  return JSON.stringify(messages);
}

describe('a /skill run and the model, against Claude Code keys', () => {
  it('/skill ID args gives the model the body with the arguments substituted', async () => {
    harness = await startEngine({
      skills: [
        { name: 'release-notes', frontmatter: 'argument-hint: "[version]"', body: 'Write the notes for version $ARGUMENTS[0] ($0).' },
        { name: 'plain', body: 'Say hello.' },
      ],
    });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('/skill release-notes v1.2', { skill: { id: 'release-notes', args: 'v1.2' } });
    const first = texts(harness.fake.requests[0]?.body?.messages ?? []);
    expect(first).toContain('Write the notes for version v1.2 (v1.2).');
    await harness.say('/skill plain to Ann', { skill: { id: 'plain', args: 'to Ann' }, chat: 'c2' });
    expect(texts(harness.fake.requests[1]?.body?.messages ?? [])).toContain('Say hello.\\n\\nARGUMENTS: to Ann');
  });

  it('refuses /skill for a user-invocable: false skill, which the model may still load', async () => {
    harness = await startEngine({ skills: [{ name: 'background', frontmatter: 'user-invocable: false', body: 'Background knowledge.' }] });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('/skill background', { skill: { id: 'background', args: '' } });
    expect(texts(harness.fake.requests[0]?.body?.messages ?? [])).toContain('not_user_invocable');
    expect(harness.app.engine.invocableSkills('terminal:local').map((s) => s.id)).toEqual([]);
    expect(harness.app.engine.allowedSkills('terminal:local').map((s) => s.id)).toEqual(['background']);

    harness.fake.setBrain(loadThenEcho('background'));
    const loaded = await harness.say('tell me', { chat: 'c2' });
    expect(loaded.reply).toContain('Background knowledge.');
  });

  it('keeps a disable-model-invocation skill from the catalog and load_skill; a person may still run it', async () => {
    harness = await startEngine({ skills: [{ name: 'deploy', frontmatter: 'disable-model-invocation: true', body: 'Deploy steps.' }] });
    harness.fake.setBrain(loadThenEcho('deploy'));
    const byModel = await harness.say('deploy please');
    expect(String(harness.fake.requests[0]?.body?.system ?? '')).not.toContain('deploy:');
    expect(byModel.reply).toContain('SKILL_NOT_FOUND');
    expect(byModel.reply).not.toContain('Deploy steps.');

    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('/skill deploy', { skill: { id: 'deploy', args: '' }, chat: 'c2' });
    expect(texts(harness.fake.requests.at(-1)?.body?.messages ?? [])).toContain('Deploy steps.');
  });
});

let tmp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  tmp = await tempDir();
});
afterEach(async () => {
  await tmp.cleanup();
});

async function run(args: string[], skillsDirs: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const output: CommandOutput = { out: (text) => void out.push(text), err: (text) => void err.push(text) };
  const code = await runSkillsCommand(args, { skillsDirs, output });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A plugin marketplace checkout as Claude Code's marketplaces are laid out. */
async function writeMarketplace(dir: string): Promise<void> {
  await writeFiles(dir, {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'team-market',
      owner: { name: 'Team' },
      plugins: [
        { name: 'docs', source: './plugins/docs' },
        { name: 'listed', source: './', skills: ['./collection/pdf'] },
        { name: 'remote', source: { source: 'github', repo: 'someone/else' } },
      ],
    }),
  });
  await writeSkill(join(dir, 'plugins/docs/skills'), 'release-notes');
  await writeSkill(join(dir, 'plugins/docs/skills'), 'pdf', 'name: pdf\ndescription: The docs plugin pdf skill.');
  await writeSkill(join(dir, 'collection'), 'pdf', 'name: pdf\ndescription: The listed pdf skill.');
  await writeSkill(join(dir, 'collection'), 'unlisted');
}

describe('roots as Claude Code keeps skills', () => {
  it('reads a marketplace checkout: each plugin in order, the clash rule between them, where each came from', async () => {
    const market = join(tmp.path, 'market');
    await writeMarketplace(market);
    const registry = await SkillRegistry.open({ roots: [market], watch: false });
    const snapshot = registry.current();
    await registry.close();
    expect(snapshot.list().map((skill) => skill.id)).toEqual(['pdf', 'release-notes']);
    const pdf = snapshot.get('pdf');
    expect(pdf?.description).toBe('The docs plugin pdf skill.');
    expect(snapshot.originOf(pdf ?? { root: '' })).toBe('plugin docs (marketplace team-market)');
    expect(snapshot.shadowed.map((entry) => entry.folder)).toEqual([join(market, 'collection/pdf')]);

    const listed = await run(['list'], [market]);
    expect(listed.out).toMatch(/release-notes .*from plugin docs \(marketplace team-market\)/);
  });

  it('reads a Claude Code project through .claude/skills and a plugin through its skills/ folder', async () => {
    const project = join(tmp.path, 'project');
    await writeSkill(join(project, '.claude/skills'), 'lint-rules');
    const plugin = join(tmp.path, 'plugin');
    await writeFiles(plugin, { '.claude-plugin/plugin.json': JSON.stringify({ name: 'helpers' }) });
    await writeSkill(join(plugin, 'skills'), 'summarise');
    const result = await run(['list', '--json'], [project, plugin]);
    const skills = (JSON.parse(result.out) as { skills: Array<{ id: string; origin: string }> }).skills;
    expect(skills.map(({ id, origin }) => ({ id, origin }))).toEqual([
      { id: 'lint-rules', origin: 'Claude Code project' },
      { id: 'summarise', origin: 'plugin helpers' },
    ]);
  });

  it('skills validate says how it treats each Claude Code key; skills show reports allowed-tools as advisory', async () => {
    const root = join(tmp.path, 'skills');
    await writeSkill(
      root,
      'report',
      'name: report\ndescription: Report.\nargument-hint: "[day]"\nuser-invocable: false\nallowed-tools: Bash(git:*) Read\nmodel: opus',
    );
    const validated = await run(['validate'], [root]);
    expect(validated.code).toBe(0);
    expect(validated.out).toContain('claude-code user-invocable: honoured');
    expect(validated.out).toContain('claude-code argument-hint: honoured');
    expect(validated.out).toContain('claude-code allowed-tools: advisory only');
    expect(validated.out).toContain('claude-code model: ignored');
    const shown = await run(['show', 'report'], [root]);
    expect(shown.code).toBe(0);
    expect(shown.err).toContain('allowed-tools (advisory only, never a pre-approval: every script still asks): Bash(git:*) Read');
    expect(shown.err).toContain('usage: /skill report [day]');
  });
});
