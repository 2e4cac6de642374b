import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalOption, ApprovalPresenter, ApprovalRecord } from '../../src/approvals/types.ts';
import { lastToolResult, scripted, textReply, toolUseReply, type BrainRequest } from '../fakes/anthropic.ts';
import { type Harness, STATS_SKILL, startHarness } from './harness.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A stand-in for a person at a platform adapter: answers every question with `answer`. */
function answeringPresenter(h: Harness, answer: ApprovalOption): ApprovalPresenter & { asked: ApprovalRecord[] } {
  const asked: ApprovalRecord[] = [];
  return {
    asked,
    async present(record) {
      asked.push(record);
      setTimeout(() => {
        void h.app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: answer, userId: record.requesterId });
      }, 5);
      return undefined;
    },
    async resolved() {},
    async tellPrivately() {},
  };
}

/** The model loads the skill, then reports what the tool result said. */
function loadThenEcho(results: string[]) {
  return (req: BrainRequest) => {
    const last = lastToolResult(req);
    if (last) {
      results.push(last.content);
      return textReply('done');
    }
    return toolUseReply('load_skill', { skill_id: 'repo-stats' });
  };
}

describe('skill scripts under approval, end to end', () => {
  it('runs the scripts a skill names after a yes, and puts their output in the envelope', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    const presenter = answeringPresenter(harness, 'yes_once');
    harness.app.approvals.addPresenter('terminal', presenter);
    const results: string[] = [];
    harness.fake.setBrain(loadThenEcho(results));
    await harness.say('how big is the repo?');
    expect(presenter.asked).toHaveLength(1);
    expect(presenter.asked[0]?.body).toContain('scripts/count.sh');
    expect(results[0]).toContain('<script_output');
    expect(results[0]).toContain('lines: 42');
  });

  it('tells the model plainly that nothing ran when nobody can be asked', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    const results: string[] = [];
    harness.fake.setBrain(loadThenEcho(results));
    await harness.say('how big is the repo?');
    expect(results[0]).toContain('did not run');
    expect(results[0]).toContain('No output exists');
    expect(results[0]).not.toContain('lines: 42');
  });

  it('remembers yes_in_session for the chat until the skill changes', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    const presenter = answeringPresenter(harness, 'yes_in_session');
    harness.app.approvals.addPresenter('terminal', presenter);
    const results: string[] = [];
    harness.fake.setBrain(loadThenEcho(results));
    await harness.say('count');
    await harness.say('count again');
    expect(presenter.asked).toHaveLength(1);
    expect(results[1]).toContain('lines: 42');

    await harness.say('count in another chat', 'other');
    expect(presenter.asked).toHaveLength(2);

    const script = join(harness.dir, 'skills', 'repo-stats', 'scripts', 'count.sh');
    await writeFile(script, (await readFile(script, 'utf8')).replace('42', '43'));
    await harness.app.registry.reload();
    await harness.say('count after the edit');
    expect(presenter.asked).toHaveLength(3);
    expect(results.at(-1)).toContain('lines: 43');
  });

  it('passes run_skill_script arguments literally and refuses scripts the skill does not name', async () => {
    harness = await startHarness({
      skills: [{ ...STATS_SKILL, files: { ...STATS_SKILL.files, 'scripts/secret.sh': '#!/bin/bash\necho secret\n' } }],
    });
    harness.app.approvals.addPresenter('terminal', answeringPresenter(harness, 'yes_once'));
    const results: string[] = [];
    harness.fake.setBrain(
      scripted([
        toolUseReply('run_skill_script', { skill_id: 'repo-stats', script: 'scripts/count.sh', args: ['$(touch pwned)', '; ls'] }),
        (req) => {
          results.push(lastToolResult(req)?.content ?? '');
          return toolUseReply('run_skill_script', { skill_id: 'repo-stats', script: 'scripts/secret.sh' });
        },
        (req) => {
          results.push(lastToolResult(req)?.content ?? '');
          return toolUseReply('run_skill_script', { skill_id: 'repo-stats', script: '../repo-stats/scripts/count.sh' });
        },
        (req) => {
          results.push(lastToolResult(req)?.content ?? '');
          return textReply('done');
        },
      ]),
    );
    await harness.say('run it');
    expect(results[0]).toContain('args: $(touch pwned) ; ls');
    expect(results[1]).toContain('script_not_referenced');
    expect(results[1]).not.toContain('secret\n');
    expect(results[2]).toContain('refused_by_containment');
  });

  it('writes an audit record for the decision and for the run', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    harness.app.approvals.addPresenter('terminal', answeringPresenter(harness, 'yes_once'));
    harness.fake.setBrain(loadThenEcho([]));
    await harness.say('count');
    const output: string[] = [];
    const { runAuditCommand } = await import('../../src/approvals/commands.ts');
    const code = await runAuditCommand(['--json'], { store: harness.app.store, output: { out: (t) => output.push(t), err: (t) => output.push(t) } });
    expect(code).toBe(0);
    const text = output.join('\n');
    expect(text).toContain('"kind":"approval"');
    expect(text).toContain('"kind":"run"');
    expect(text).toContain('scripts/count.sh');
    expect(await harness.app.metrics.value(harness.app.metrics.scriptRuns, { skill: 'repo-stats', status: 'ok' })).toBe(1);
    expect(await harness.app.metrics.value(harness.app.metrics.approvals, { skill: 'repo-stats', outcome: 'yes_once' })).toBe(1);
  });
});
