// A Stop that ends the whole sandbox at once (the chat's files in and out: workspace.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { hostPidsWith, makeSkill, uniqueSleep, waitGone, watchHostPids, type TempSkill } from './skillFolder.ts';

describe('files of the turn, and stopping a run', () => {
  let skill: TempSkill;
  let host: string;
  beforeEach(async () => {
    skill = await makeSkill();
    host = await mkdtemp(path.join(os.tmpdir(), 'skillbot-io-test-'));
  });
  afterEach(async () => {
    await skill.remove();
    await rm(host, { recursive: true, force: true });
  });

  it('stops the whole sandbox at once when the signal aborts', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/long.sh', `#!/bin/bash\n( setsid sleep ${mark} & )\nsleep ${mark}\n`);
    const stop = new AbortController();
    const run = createExecutor({ timeoutMs: 60_000 }).run({ skillDir: skill.dir, script: 'scripts/long.sh', signal: stop.signal });
    const watched = watchHostPids(mark, run);
    // Stop once both sleeps are up.
    const started = Date.now();
    while (Date.now() - started < 10_000) {
      if ((await hostPidsWith(mark)).length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The watcher samples every 50 ms: let it see both before the stop ends them (a loaded machine missed one).
    await new Promise((resolve) => setTimeout(resolve, 150));
    stop.abort();
    const { value: result, pids } = await watched;
    expect(result.status).toBe('stopped');
    expect(result.reason).toMatch(/stopped/);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await waitGone(pid)).toBe(true);
  });

  it('does not start a run whose signal is already aborted', async () => {
    await skill.write('scripts/hello.sh', '#!/bin/bash\necho hello\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/hello.sh', signal: AbortSignal.abort() });
    expect(result.status).toBe('stopped');
    expect(result.stdout).toBe('');
  });
});
