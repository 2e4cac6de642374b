import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.ts';
import {
  lastToolResult,
  textReply,
  toolUseReply,
  type BrainRequest,
  type RecordedRequest,
  type RequestMessage,
} from '../fakes/anthropic.ts';
import { type EngineHarness, jsonLines, startEngine, type SkillSpec } from './engineHarness.ts';

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const NOTES: SkillSpec = {
  name: 'release-notes',
  frontmatter: [
    'triggers: ["release notes", "changelog"]',
    'preflight:',
    '  - name: commits',
    '    command: scripts/commits.sh',
    '    args: ["3"]',
    '  - name: today',
    '    tool: current_time',
    '    inject: variable',
    '',
  ].join('\n'),
  body: 'Write release notes as of {{preflight.today}} from the commits block.',
  files: { 'scripts/commits.sh': '#!/bin/bash\nfor i in $(seq 1 "$1"); do echo "abc$i fix bug $i"; done\n' },
};

const plainSkill = (name: string, triggers: string[], extra = ''): SkillSpec => ({
  name,
  frontmatter: `triggers: ${JSON.stringify(triggers)}\n${extra}`,
  body: `Instructions of ${name}.`,
});

/** A skill whose hooks append the events they see to $OUT (set per skill in the world's config). */
const hooked = (name: string, triggers: string[]): SkillSpec => ({
  name,
  frontmatter: [
    `triggers: ${JSON.stringify(triggers)}`,
    'hooks:',
    '  pre_context: hooks/rec.sh',
    '  post_context: hooks/rec.sh',
    '  pre_execute: hooks/rec.sh',
    '  post_execute: hooks/rec.sh',
    '  on_error: hooks/rec.sh',
    '',
  ].join('\n'),
  body: `Run scripts/work.sh with the task name.`,
  files: {
    'hooks/rec.sh': '#!/bin/bash\ncat >> "$OUT"\necho >> "$OUT"\n',
    'scripts/work.sh': '#!/bin/bash\nif [ "$1" = "boom" ]; then echo broke >&2; exit 4; fi\necho "worked on ${1:-nothing}"\n',
  },
});

interface HookLine {
  event: string;
  skill: { id: string };
  chat: { id: string };
  script?: { path: string; args: string[] };
  error?: { source: string };
}

function blocks(message: RequestMessage | undefined): Array<Record<string, unknown>> {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Array<Record<string, unknown>>);
}

/** Skill ids the runtime or the model loaded with load_skill, in the messages of a request. */
function loadedIn(request: RecordedRequest | undefined): string[] {
  return (request?.body?.messages ?? []).flatMap((message) =>
    blocks(message).flatMap((block) => (block.type === 'tool_use' && block.name === 'load_skill' ? [String((block.input as { skill_id: string }).skill_id)] : [])),
  );
}

function toolResults(request: RecordedRequest | undefined): Array<{ content: string; is_error?: boolean }> {
  return blocks(request?.body?.messages.at(-1)).flatMap((block) =>
    block.type === 'tool_result' ? [{ content: String(block.content), is_error: block.is_error as boolean | undefined }] : [],
  );
}

function lastText(request: RecordedRequest | undefined): string {
  return blocks(request?.body?.messages.at(-1)).flatMap((block) => (block.type === 'text' ? [String(block.text)] : [])).join('\n');
}

/** Points the hooks of `skills` at one log file (the world's config gives each skill its OUT variable). */
function logHooksOf(h: EngineHarness, ...skills: string[]): string {
  const file = join(h.dir, 'hooks.log');
  for (const skill of skills) h.app.config.defaults.env[skill] = { OUT: file };
  return file;
}

describe('triggered skills', () => {
  it('load before the model reasons: one round trip, with preflight context and variables in the envelope', async () => {
    harness = await startEngine({ skills: [NOTES, plainSkill('other', ['deploy'])], answer: 'yes_once', hostFiles: true });
    harness.fake.setBrain(() => textReply('Here are the notes.'));
    const { reply } = await harness.say('Please draft the Release Notes for 2.0');
    expect(reply).toBe('Here are the notes.');
    expect(harness.fake.requests).toHaveLength(1);
    const [request] = harness.fake.requests;
    expect(loadedIn(request)).toEqual(['release-notes']);
    const [result] = toolResults(request);
    expect(result?.is_error).toBe(false);
    expect(result?.content).toContain('<skill_context skill="release-notes" status="loaded">');
    expect(result?.content).toMatch(/<preflight_context[^>]*>\n<item label="commits">\nabc1 fix bug 1\nabc2 fix bug 2\nabc3 fix bug 3\n<\/item>/);
    expect(result?.content).toMatch(/Write release notes as of \w+day, .* \(UTC; \d{4}-\d\d-\d\dT/);
    expect(lastText(request)).toContain('skillbot loaded "release-notes" (matched: "release notes")');
  });

  it('are not injected again while the chat can still see them; another chat gets its own', async () => {
    harness = await startEngine({ skills: [plainSkill('notes', ['changelog'])] });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('write the changelog');
    await harness.say('and another changelog entry');
    await harness.say('changelog please', { chat: 'c2' });
    const [first, second, third] = harness.fake.requests;
    expect(loadedIn(first)).toEqual(['notes']);
    // The second turn's request carries the first turn's load from history, and no new one.
    expect(loadedIn(second)).toEqual(['notes']);
    expect(lastText(second)).toBe('and another changelog entry');
    expect(loadedIn(third)).toEqual(['notes']);
    expect(toolResults(third)).toHaveLength(1);
  });

  it('never auto-activate a skill with disable-model-invocation, though /skill still loads it', async () => {
    harness = await startEngine({ skills: [plainSkill('deploy-prod', ['deploy'], 'disable-model-invocation: true\n')] });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('deploy it');
    expect(loadedIn(harness.fake.requests[0])).toEqual([]);
    await harness.say('', { skill: { id: 'deploy-prod', args: 'to staging' } });
    expect(loadedIn(harness.fake.requests[1])).toEqual(['deploy-prod']);
    expect(lastText(harness.fake.requests[1])).toContain('Use it now for this request: to staging');
  });

  it('/skill always wins over the triggers its text matches', async () => {
    harness = await startEngine({ skills: [plainSkill('alpha', ['alpha']), plainSkill('beta', ['beta'])] });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('/skill alpha compare with beta', { skill: { id: 'alpha', args: 'compare with beta' } });
    expect(loadedIn(harness.fake.requests[0])).toEqual(['alpha']);
  });

  it('activate at most config.agent.maxTriggeredSkills skills, the best matches', async () => {
    harness = await startEngine({
      skills: [plainSkill('a', ['deploy']), plainSkill('b', ['deploy']), plainSkill('c', ['deploy']), plainSkill('best', ['deploy', 'prod'])],
      tweak: (config) => void (config.agent.maxTriggeredSkills = 2),
    });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('deploy to prod');
    expect(loadedIn(harness.fake.requests[0])).toEqual(['best', 'a']);
  });

  it('never activate a skill the world does not allow', async () => {
    harness = await startEngine({
      skills: [plainSkill('secret-ops', ['deploy']), plainSkill('public-ops', ['deploy'])],
      tweak: (config) => void (config.defaults.skills = ['public-ops']),
    });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('deploy it');
    expect(loadedIn(harness.fake.requests[0])).toEqual(['public-ops']);
  });

  it('ask one question listing the preflight commands and hooks together; loading runs no script the body names', async () => {
    const spec = hooked('journal', ['journal']);
    harness = await startEngine({
      skills: [{ ...spec, frontmatter: `${spec.frontmatter}preflight:\n  - command: scripts/work.sh\n    args: ["preflight"]\n` }],
      answer: 'yes_once',
      hostFiles: true,
    });
    const log = logHooksOf(harness, 'journal');
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('start the journal');
    expect(harness.asked).toHaveLength(1);
    expect(harness.asked[0]?.items).toEqual([
      { kind: 'preflight', path: 'scripts/work.sh', args: ['preflight'] },
      { kind: 'hook', path: 'hooks/rec.sh', args: [] },
    ]);
    const events = (await jsonLines<HookLine>(log)).map((line) => line.event);
    expect(events).toEqual(['pre_context', 'post_context']);
    // The body's "Run scripts/work.sh with the task name" waits for the model to call it with the name.
    expect(toolResults(harness.fake.requests[0])[0]?.content).not.toContain('worked on nothing');
    expect(toolResults(harness.fake.requests[0])[0]?.content).toContain('worked on preflight');
  });

  it('a failing required preflight step aborts the activation and the user is told why', async () => {
    // Nobody can be asked here, so the default answer (no) applies and the command step cannot run.
    harness = await startEngine({ skills: [NOTES] });
    harness.fake.setBrain(() => textReply('The release-notes skill could not start.'));
    const { reply } = await harness.say('release notes please');
    expect(reply).toBe('The release-notes skill could not start.');
    const [result] = toolResults(harness.fake.requests[0]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain('code="preflight_failed"');
    expect(result?.content).toContain(
      'its preflight step "commits" failed: its code was not approved: nobody could be asked here, so the default answer (no) applied',
    );
    expect(lastText(harness.fake.requests[0])).toContain('could not be activated. Tell me why');
    // Not activated, so the next message that matches tries again.
    await harness.say('release notes, second try');
    expect(toolResults(harness.fake.requests[1])).toHaveLength(1);
  });
});

describe('hooks in the engine', () => {
  /** The model runs work.sh of `skill` with `args` when the turn opens with plain text, else it answers. */
  const runsWork = (skill: string, args: string[]) => (req: BrainRequest) =>
    lastToolResult(req) ? textReply('done') : toolUseReply('run_skill_script', { skill_id: skill, script: 'scripts/work.sh', args });

  it('fire in the order skills were activated, and only in the chat where they were activated', async () => {
    harness = await startEngine({ skills: [hooked('alpha', ['alpha', 'both']), hooked('beta', ['both'])], answer: 'yes_in_session', hostFiles: true });
    const log = logHooksOf(harness, 'alpha', 'beta');
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('do both alpha things');
    const activation = (await jsonLines<HookLine>(log)).map((line) => `${line.skill.id}:${line.event}`);
    expect(activation).toEqual(['alpha:pre_context', 'alpha:post_context', 'beta:pre_context', 'beta:post_context']);

    harness.fake.setBrain(runsWork('alpha', ['task']));
    await harness.say('run it elsewhere', { chat: 'c2' });
    expect(await jsonLines<HookLine>(log)).toHaveLength(activation.length);

    await harness.say('run it here');
    const here = (await jsonLines<HookLine>(log)).slice(activation.length);
    expect(here.map((line) => [line.event, line.chat.id, line.script?.args])).toEqual([
      ['pre_execute', 'terminal:local/c1', ['task']],
      ['post_execute', 'terminal:local/c1', ['task']],
    ]);
  });

  it('fire on_error when a script fails, and the turn goes on', async () => {
    harness = await startEngine({ skills: [hooked('alpha', ['alpha'])], answer: 'yes_in_session', hostFiles: true });
    const log = logHooksOf(harness, 'alpha');
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('alpha');
    harness.fake.setBrain(runsWork('alpha', ['boom']));
    const { status } = await harness.say('now break it');
    expect(status).toBe('answered');
    const lines = (await jsonLines<HookLine>(log)).slice(2);
    expect(lines.map((line) => line.event)).toEqual(['pre_execute', 'post_execute', 'on_error']);
    expect(lines[2]?.error?.source).toBe('script');
  });
});

describe('what the chat remembers', () => {
  it('re-injects a skill that dropped out of the trimmed history', async () => {
    harness = await startEngine({ skills: [plainSkill('notes', ['changelog'])], tweak: (config) => void (config.agent.historyTokens = 1000) });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('write the changelog');
    await harness.say(`unrelated: ${'many words '.repeat(600)}`);
    await harness.say('the changelog again');
    expect(toolResults(harness.fake.requests[2])).toHaveLength(1);
  });

  it('survives a restart, and injects a skill again once it was edited', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbot-restart-'));
    const store = `sqlite://${join(dir, 'state.sqlite')}`;
    const env = (config: Config) => void (config.defaults.env.alpha = { OUT: join(dir, 'hooks.log') });
    try {
      const first = await startEngine({ skills: [hooked('alpha', ['alpha'])], answer: 'yes_in_session', dir, store, tweak: env, hostFiles: true });
      first.fake.setBrain(() => textReply('ok'));
      await first.say('alpha');
      await first.close();

      harness = await startEngine({ skills: [hooked('alpha', ['alpha'])], dir, store, tweak: env, hostFiles: true });
      harness.fake.setBrain((req) => (lastToolResult(req) ? textReply('done') : toolUseReply('run_skill_script', { skill_id: 'alpha', script: 'scripts/work.sh', args: ['again'] })));
      await harness.say('alpha, after the restart');
      // Not injected again: the envelope is still in the persisted history, and the hooks are still registered.
      expect(loadedIn(harness.fake.requests[0])).toEqual(['alpha']);
      expect(lastText(harness.fake.requests[0])).toBe('alpha, after the restart');
      const events = (await jsonLines<HookLine>(join(dir, 'hooks.log'))).map((line) => line.event);
      expect(events.slice(2)).toEqual(['pre_execute', 'post_execute']);
      await harness.close();

      const edited = hooked('alpha', ['alpha']);
      harness = await startEngine({ skills: [{ ...edited, body: `${edited.body}\nNow with more care.` }], dir, store, tweak: env, hostFiles: true });
      harness.fake.setBrain(() => textReply('ok'));
      await harness.say('alpha, edited');
      expect(toolResults(harness.fake.requests[0])).toHaveLength(1);
      expect(toolResults(harness.fake.requests[0])[0]?.content).toContain('Now with more care.');
    } finally {
      await harness?.close();
      harness = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
