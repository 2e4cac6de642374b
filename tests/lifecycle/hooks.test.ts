import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { createAuditLog, type AuditLog } from '../../src/approvals/audit.ts';
import { fireHooks, hookTimeoutMs, type HookDeps, type HookScope } from '../../src/lifecycle/hooks.ts';
import { silentLogger } from '../../src/ops/log.ts';
import type { SkillSnapshot } from '../../src/skills/types.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { jsonLines, snapshotOf, writeSkill } from './engineHarness.ts';

// These tests watch the order of steps through a file on the host, which the sandbox (tested in tests/exec) hides
// from skill processes by design: they run the executor with SCRIPT_SANDBOX=off.

// Appends one JSON line naming the hook, where it ran, what it could see and the event it read on stdin.
const recorder = (name: string, exit = 0, sleep = 0) => `#!/bin/bash
event="$(cat)"
${sleep > 0 ? `sleep ${sleep}\n` : ''}printf '{"hook":"${name}","cwd":"%s","mine":"%s","secret":"%s","event":%s}\\n' "$PWD" "\${MINE:-}" "\${SECRET_OF_THE_BOT:-}" "$event" >> "$OUT"
exit ${exit}
`;

interface Line {
  hook: string;
  cwd: string;
  mine: string;
  secret: string;
  event: {
    event: string;
    skill: { id: string; hash: string };
    world: { id: string };
    chat: { id: string };
    turn: { id: string };
    script?: { path: string; args: string[] };
    result?: { status: string };
    error?: { source: string; script?: string; event?: string };
  };
}

let root: string;
let out: string;
let store: Store;
let audit: AuditLog;
let deps: HookDeps;
let snapshot: SkillSnapshot;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbot-hooks-'));
  out = join(root, 'hooks.log');
  store = await createStore('memory://');
  audit = createAuditLog(store);
  deps = { executor: createExecutor({ timeoutMs: 30_000, killGraceMs: 200, sandbox: 'off' }), audit, logger: silentLogger() };
  const files = {
    'hooks/a.sh': recorder('a'),
    'hooks/b.sh': recorder('b'),
    'hooks/fail.sh': recorder('fail', 3),
    'hooks/slow.sh': recorder('slow', 0, 30),
    'hooks/onerr.sh': recorder('onerr'),
  };
  await writeSkill(root, {
    name: 'alpha',
    frontmatter: [
      'hooks:',
      '  post_execute: [hooks/a.sh, hooks/b.sh]',
      '  pre_execute:',
      '    - script: hooks/slow.sh',
      '      timeout: 1',
      '    - hooks/fail.sh',
      '    - hooks/a.sh',
      '  on_error: hooks/onerr.sh',
      '',
    ].join('\n'),
    body: 'Alpha.',
    files,
  });
  await writeSkill(root, {
    name: 'beta',
    frontmatter: 'hooks:\n  post_execute: hooks/b.sh\n  on_error: [hooks/fail.sh, hooks/a.sh]\n',
    body: 'Beta.',
    files,
  });
  snapshot = await snapshotOf(root);
  process.env.SECRET_OF_THE_BOT = 'sk-live-do-not-leak';
});

afterEach(async () => {
  delete process.env.SECRET_OF_THE_BOT;
  await store.close();
  await rm(root, { recursive: true, force: true });
});

function scope(skillId: string, allowed = true): HookScope {
  const skill = snapshot.get(skillId);
  if (!skill) throw new Error(`no skill ${skillId}`);
  return {
    worldId: 'terminal:local',
    chatId: 'terminal:local/c1',
    turnId: 'turn1',
    requesterId: 'U1',
    skill,
    env: { OUT: out, MINE: `env of ${skillId}` },
    allowed,
  };
}

describe('skill hooks', () => {
  it('run FIFO within an event, each reading the event as JSON on stdin', async () => {
    const failures = await fireHooks(deps, scope('alpha'), 'post_execute', {
      script: { path: 'scripts/x.sh', args: ['one'] },
      result: { status: 'ok', exitCode: 0 },
    });
    expect(failures).toEqual([]);
    const lines = await jsonLines<Line>(out);
    expect(lines.map((line) => line.hook)).toEqual(['a', 'b']);
    expect(lines[0]?.event).toEqual({
      event: 'post_execute',
      skill: { id: 'alpha', hash: snapshot.get('alpha')?.hash },
      world: { id: 'terminal:local' },
      chat: { id: 'terminal:local/c1' },
      turn: { id: 'turn1' },
      script: { path: 'scripts/x.sh', args: ['one'] },
      result: { status: 'ok', exitCode: 0 },
    });
  });

  it('are isolated per skill: own folder, own environment, none of the bot’s variables', async () => {
    await fireHooks(deps, scope('alpha'), 'post_execute', {});
    await fireHooks(deps, scope('beta'), 'post_execute', {});
    const lines = await jsonLines<Line>(out);
    expect(lines.map((line) => [line.hook, line.event.skill.id])).toEqual([
      ['a', 'alpha'],
      ['b', 'alpha'],
      ['b', 'beta'],
    ]);
    expect(lines[0]?.cwd).toBe(await realpath(join(root, 'alpha')));
    expect(lines[2]?.cwd).toBe(await realpath(join(root, 'beta')));
    expect(lines.map((line) => line.mine)).toEqual(['env of alpha', 'env of alpha', 'env of beta']);
    expect(lines.every((line) => line.secret === '')).toBe(true);
  });

  it('a hook that fails or times out is reported, fires on_error, and never stops the next hooks', async () => {
    const started = Date.now();
    const failures = await fireHooks(deps, scope('alpha'), 'pre_execute', { script: { path: 'scripts/x.sh', args: [] } });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(failures.map((failure) => [failure.script, failure.status])).toEqual([
      ['hooks/slow.sh', 'timeout'],
      ['hooks/fail.sh', 'failed'],
    ]);
    const lines = await jsonLines<Line>(out);
    // slow.sh was killed before it could write.
    expect(lines.map((line) => line.hook)).toEqual(['onerr', 'fail', 'onerr', 'a']);
    expect(lines[0]?.event.error).toMatchObject({ source: 'hook', event: 'pre_execute', script: 'hooks/slow.sh' });
    expect(lines[2]?.event.error).toMatchObject({ source: 'hook', event: 'pre_execute', script: 'hooks/fail.sh' });
    const audited = (await audit.list({ worldId: 'terminal:local' })).map((entry) => [entry.items[0]?.path, entry.items[0]?.kind, entry.outcome]);
    expect(audited).toEqual([
      ['hooks/slow.sh', 'hook', 'timeout'],
      ['hooks/onerr.sh', 'hook', 'ok'],
      ['hooks/fail.sh', 'hook', 'failed'],
      ['hooks/onerr.sh', 'hook', 'ok'],
      ['hooks/a.sh', 'hook', 'ok'],
    ]);
  });

  it('a failure inside on_error is only logged: no recursion, no report, the next on_error hook still runs', async () => {
    const failures = await fireHooks(deps, scope('beta'), 'on_error', { error: { source: 'script', message: 'exit 1' } });
    expect(failures).toEqual([]);
    expect((await jsonLines<Line>(out)).map((line) => line.hook)).toEqual(['fail', 'a']);
  });

  it('run nothing when the skill’s code was not approved', async () => {
    expect(await fireHooks(deps, scope('alpha', false), 'post_execute', {})).toEqual([]);
    expect(await jsonLines(out)).toEqual([]);
  });

  it('default to a 10 s timeout, and never more than 120 s', () => {
    expect(hookTimeoutMs({ script: 'hooks/a.sh' })).toBe(10_000);
    expect(hookTimeoutMs({ script: 'hooks/a.sh', timeout: 3 })).toBe(3000);
    expect(hookTimeoutMs({ script: 'hooks/a.sh', timeout: 900 })).toBe(120_000);
  });
});
