import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, uniqueSleep, waitGone, watchHostPids, type TempSkill } from './skillFolder.ts';

// Short timeout and grace: these runs are meant to be killed.
const executor = () => createExecutor({ timeoutMs: 1500, killGraceMs: 500 });

// Processes are found from the host by a unique `sleep` argument: pids printed inside the sandbox are its own.
async function allGone(pids: number[]): Promise<boolean> {
  for (const pid of pids) if (!(await waitGone(pid))) return false;
  return true;
}

describe('the script timeout', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('kills the script and a background grandchild', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/hang.sh', `#!/bin/bash\nsleep ${mark} &\nsleep ${mark}\n`);
    const { value: result, pids } = await watchHostPids(mark, executor().run({ skillDir: skill.dir, script: 'scripts/hang.sh' }));
    expect(result.status).toBe('timeout');
    expect(result.exitCode).toBeNull();
    expect(pids).toHaveLength(2);
    expect(await allGone(pids)).toBe(true);
  });

  it('kills a script and a grandchild that ignore SIGTERM', async () => {
    const mark = uniqueSleep();
    await skill.write(
      'scripts/stubborn.sh',
      `#!/bin/bash\ntrap '' TERM\n(trap '' TERM; exec sleep ${mark}) &\nwhile true; do sleep 0.1; done\n`,
    );
    const { value: result, pids } = await watchHostPids(mark, executor().run({ skillDir: skill.dir, script: 'scripts/stubborn.sh' }));
    expect(result.status).toBe('timeout');
    expect(pids).toHaveLength(1);
    expect(await allGone(pids)).toBe(true);
  });

  it('ends a background child that keeps the output open when the script exits (the sandbox ends with it)', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/daemon.sh', `#!/bin/bash\nsleep ${mark} &\nsleep 1\nexit 0\n`);
    const { value: result, pids } = await watchHostPids(mark, executor().run({ skillDir: skill.dir, script: 'scripts/daemon.sh' }));
    expect(result.status).toBe('ok');
    expect(result.exitCode).toBe(0);
    expect(pids).toHaveLength(1);
    expect(await allGone(pids)).toBe(true);
  });

  it('ends a process that left the session (setsid) holding the output, when the script exits', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/escape.sh', `#!/bin/bash\nsetsid sleep ${mark} &\nsleep 1\nexit 0\n`);
    const { value: result, pids } = await watchHostPids(mark, executor().run({ skillDir: skill.dir, script: 'scripts/escape.sh' }));
    expect(result.status).toBe('ok');
    expect(pids).toHaveLength(1);
    expect(await allGone(pids)).toBe(true);
  });

  it('ends background processes that redirected their output once the script is done', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/detach.sh', `#!/bin/bash\nsleep ${mark} >/dev/null 2>&1 &\nsleep 1\n`);
    const run = createExecutor({ timeoutMs: 20_000 }).run({ skillDir: skill.dir, script: 'scripts/detach.sh' });
    const { value: result, pids } = await watchHostPids(mark, run);
    expect(result.status).toBe('ok');
    expect(pids).toHaveLength(1);
    expect(await allGone(pids)).toBe(true);
  });

  it('takes a per-request timeout over the executor default', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/slow.sh', `#!/bin/bash\nsleep ${mark}\n`);
    const run = createExecutor({ timeoutMs: 60_000 }).run({ skillDir: skill.dir, script: 'scripts/slow.sh', timeoutMs: 1000 });
    const { value: result, pids } = await watchHostPids(mark, run);
    expect(result.status).toBe('timeout');
    expect(result.reason).toMatch(/1000 ms/);
    expect(pids).toHaveLength(1);
    expect(await allGone(pids)).toBe(true);
  });
});
