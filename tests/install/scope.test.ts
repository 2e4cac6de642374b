// A skill installed for one world stays in that world, on every path the model and people have: the catalog (a
// world that allows every skill, the default, included), find_skills, load_skill, run_skill_script, `/skill` and
// triggers. The real engine against the Anthropic fake; skills installed from a git server of our own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResult, type RequestMessage, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeGitServer, startFakeGitServer } from '../fakes/gitServer.ts';
import { type EngineHarness, startEngine, WORLD } from '../lifecycle/engineHarness.ts';
import { installFor, skillMd } from './fixtures.ts';

const ELSEWHERE = 'slack:T1:COTHER';
let git: FakeGitServer;
let harness: EngineHarness | undefined;
const dirs: string[] = [];

beforeAll(async () => {
  git = await startFakeGitServer();
  git.commit('acme/kit', {
    // Installed here (terminal:local).
    'skills/here-notes/SKILL.md': skillMd('here-notes', 'Keep meeting notes for this team.', 'Write the notes.'),
    // Installed for another channel: with findings there, approved there, never seen here.
    'skills/ledger-audit/SKILL.md': skillMd('ledger-audit', 'Audit the ledger for unpaid invoices.', 'SECRET-BODY: run `scripts/audit.sh`.', 'triggers:\n  - audit the ledger\n'),
    'skills/ledger-audit/scripts/audit.sh': { text: '#!/bin/sh\necho audited\n', executable: true },
  });
});
afterAll(async () => {
  await git?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** An engine for terminal:local (every skill allowed, the default), with here-notes installed here and ledger-audit elsewhere. */
async function start(catalogBudgetChars?: number): Promise<EngineHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'skillbot-install-scope-'));
  dirs.push(dir);
  const started = await startEngine({
    dir,
    skills: [{ name: 'local-helper', description: 'A skill on disk, for every world.', body: 'Help.' }],
    tweak: (config) => {
      config.install.githubUrl = git.url;
      config.install.dir = join(dir, 'installed');
      config.install.egressAllow = ['127.0.0.1/32'];
      if (catalogBudgetChars !== undefined) config.agent.catalogBudgetChars = catalogBudgetChars;
    },
  });
  await installFor(started.app, 'github:acme/kit/skills/here-notes', WORLD);
  await installFor(started.app, 'github:acme/kit/skills/ledger-audit', ELSEWHERE);
  return started;
}

const everything = (req: { system?: unknown; messages: RequestMessage[] }) => `${JSON.stringify(req.system)}\n${JSON.stringify(req.messages)}`;

describe('a skill installed for one world, seen from another', () => {
  it('is not in the catalog of a world that allows every skill, and its triggers do not fire there', async () => {
    harness = await start();
    let seen = '';
    harness.fake.setBrain((req) => {
      seen = everything(req);
      return textReply('ok');
    });
    await harness.say('please audit the ledger for me');
    expect(seen).toContain('here-notes');
    expect(seen).toContain('local-helper');
    expect(seen).not.toContain('ledger-audit');
    expect(seen).not.toContain('SECRET-BODY');
    // The world it was installed for has it, in its catalog and by its trigger.
    expect(harness.app.engine.allowedSkills(ELSEWHERE).map((skill) => skill.id)).toContain('ledger-audit');
    expect(harness.app.engine.allowedSkills(WORLD).map((skill) => skill.id)).not.toContain('ledger-audit');
  });

  it('is not found by find_skills', async () => {
    harness = await start(60);
    harness.fake.setBrain((req) => {
      const result = lastToolResult(req);
      return result ? textReply(result.content) : toolUseReply('find_skills', { query: 'audit the ledger unpaid invoices' });
    });
    const { reply } = await harness.say('who has not paid?');
    expect(harness.fake.requests[0]?.body?.tools?.map((tool) => tool.name)).toContain('find_skills');
    expect(reply).toMatch(/^<skill_search/);
    expect(reply).not.toContain('ledger-audit');
  });

  it('does not load, and its script does not run: the envelope says not found and names no hidden id', async () => {
    harness = await start();
    const steps = [
      toolUseReply('load_skill', { skill_id: 'ledger-audit' }),
      toolUseReply('run_skill_script', { skill_id: 'ledger-audit', script: 'scripts/audit.sh', args: [] }),
      toolUseReply('load_skill', { skill_id: 'here-notes' }),
    ];
    const results: string[] = [];
    harness.fake.setBrain((req) => {
      const result = lastToolResult(req);
      if (result) results.push(result.content);
      return steps[results.length] ?? textReply('done');
    });
    await harness.say('audit the books');
    expect(results[0]).toMatch(/<skill_context skill="ledger-audit" status="not_found"/);
    expect(results[1]).toMatch(/status="not_found"/);
    expect(results.slice(0, 2).join('\n')).not.toContain('SECRET-BODY');
    expect(results[1]).not.toContain('audited');
    expect(results[2]).toContain('Write the notes.');
    expect(harness.asked).toEqual([]);
  });

  it('is refused by `/skill` as an unknown skill; the one installed here runs', async () => {
    harness = await start();
    let seen = '';
    harness.fake.setBrain((req) => {
      seen = everything(req);
      return textReply('ok');
    });
    await harness.say('/skill ledger-audit', { skill: { id: 'ledger-audit', args: '' } });
    expect(seen).toMatch(/skill=\\"ledger-audit\\" status=\\"not_found\\"/);
    expect(seen).not.toContain('SECRET-BODY');
    await harness.say('/skill here-notes', { skill: { id: 'here-notes', args: '' } });
    expect(seen).toContain('Write the notes.');
    expect(harness.app.engine.invocableSkills(WORLD).map((skill) => skill.id)).toEqual(['here-notes', 'local-helper']);
  });
});
