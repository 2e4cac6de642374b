import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult, textReply, toolUseReply, type RecordedRequest } from '../fakes/anthropic.ts';
import { createAuditLog } from '../../src/approvals/index.ts';
import { type EngineHarness, snapshotOf, startEngine } from './engineHarness.ts';

const EXAMPLES = ['git-recap', 'standup-notes', 'skill-journal'];
const SHIPPED = resolve(import.meta.dirname, '../../skills');

let harness: EngineHarness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** An engine over copies of the example skills. */
async function engineOverExamples(): Promise<EngineHarness> {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-examples-'));
  await mkdir(join(dir, 'skills'));
  for (const name of EXAMPLES) await cp(join(SHIPPED, name), join(dir, 'skills', name), { recursive: true });
  return startEngine({ skills: [], dir, answer: 'yes_once' });
}

/** The runtime's load_skill result, in the last message of a request. */
function activationResult(request: RecordedRequest | undefined): string {
  const message = request?.body?.messages.at(-1);
  const block = Array.isArray(message?.content) ? (message.content[0] as { content?: unknown }) : undefined;
  return String(block?.content ?? '');
}

describe('the example skills', () => {
  it('are valid and together show triggers, every inject mode and every hook event', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-examples-'));
    for (const name of EXAMPLES) await cp(join(SHIPPED, name), join(dir, name), { recursive: true });
    const snapshot = await snapshotOf(dir);
    const loaded = EXAMPLES.map((name) => snapshot.get(name));
    expect(loaded.every((skill) => skill !== undefined && skill.triggers.length > 0)).toBe(true);
    const modes = new Set(loaded.flatMap((skill) => skill?.preflight.map((step) => step.inject) ?? []));
    expect([...modes].sort()).toEqual(['context', 'silent', 'variable']);
    const events = new Set(loaded.flatMap((skill) => Object.keys(skill?.hooks ?? {})));
    expect([...events].sort()).toEqual(['on_error', 'post_context', 'post_execute', 'pre_context', 'pre_execute']);
  });

  it('git-recap: an optional command that fails leaves a marker, and the date fills its variable', async () => {
    harness = await engineOverExamples();
    harness.fake.setBrain(() => textReply('recap'));
    await harness.say('git recap please');
    const result = activationResult(harness.fake.requests[0]);
    expect(result).toContain('<item label="commits (failed)">');
    expect(result).toContain('is not a git repository');
    expect(result).toMatch(/Today is: \w+day, /);
  });

  it('standup-notes: the chat’s recent messages arrive as context', async () => {
    harness = await engineOverExamples();
    harness.fake.setBrain(() => textReply('noted'));
    await harness.say('yesterday I fixed the login timeout');
    await harness.say('can you write my standup?');
    const result = activationResult(harness.fake.requests[1]);
    expect(result).toMatch(/<item label="conversation">\nuser: yesterday I fixed the login timeout\nassistant: noted\n<\/item>/);
    expect(result).toMatch(/It is now \w+day, .*\(UTC; /);
  });

  it('skill-journal: its sandboxed hooks journal the activation and the script run into the audit trail', async () => {
    harness = await engineOverExamples();
    // As its instructions say: the model runs the health script with the service's name.
    // (The trigger's activation already put a tool result in the first request.)
    harness.fake.setBrain((req) =>
      req.index > 0 ? textReply('healthy') : toolUseReply('run_skill_script', { skill_id: 'skill-journal', script: 'scripts/health.sh', args: ['api'] }, { text: 'I will check the api.' }),
    );
    await harness.say('run a health check');
    const hookRuns = (await createAuditLog(harness.app.store).list()).filter((entry) => entry.kind === 'run' && entry.items[0]?.kind === 'hook');
    const journal = hookRuns.filter((entry) => entry.items[0]?.path === 'hooks/journal.sh').map((entry) => JSON.parse(entry.output ?? '{}') as { event: string });
    expect(journal.map((line) => line.event)).toEqual(['pre_context', 'post_context', 'pre_execute', 'post_execute']);
    expect(hookRuns.find((entry) => entry.items[0]?.path === 'hooks/notify.sh')?.output).toBe('skill-journal: a script finished with status ok');
    expect(lastToolResult({ messages: harness.fake.requests[1]?.body?.messages ?? [] })?.content).toContain('api: ok');
  });
});
