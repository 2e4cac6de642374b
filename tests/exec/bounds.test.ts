// Issue 19's bounds on one run as a whole: its writable places are sized filesystems (a fill stops at the bound,
// and the result says which bound), everything else is read-only, and no nested namespaces can be made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { stat } from 'node:fs/promises';
import { hostPidsWith, makeSkill, type TempSkill, uniqueSleep } from './skillFolder.ts';

const MiB = 1024 * 1024;

describe('the bounds of one run', () => {
  let skill: TempSkill;
  beforeAll(async () => {
    skill = await makeSkill();
    await skill.write('scripts/fill.sh', '#!/bin/sh\nhead -c 67108864 /dev/zero > "$1/fill"; rc=$?\nwc -c < "$1/fill"\nexit $rc\n');
  });
  afterAll(async () => {
    await skill.remove();
  });

  const executor = () => createExecutor({ timeoutMs: 20_000, limits: { tmpBytes: 16 * MiB, homeBytes: 8 * MiB, shmBytes: 4 * MiB } });

  it.each([
    ['/tmp', 16, 'its /tmp (TMPDIR) is full: the 16 MiB bound (SCRIPT_TMP_MB)'],
    ['/home/sandbox', 8, 'its HOME (/home/sandbox) is full: the 8 MiB bound (SCRIPT_HOME_MB)'],
    ['/dev/shm', 4, 'its /dev/shm is full: the 4 MiB bound'],
  ])('stops a fill of %s at its bound, and the reason names the bound', async (dir, mib, bound) => {
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/fill.sh', args: [dir] });
    expect(result.status).toBe('failed');
    // What the run put into memory or disk there is at most the bound.
    expect(Number(result.stdout.trim())).toBeLessThanOrEqual(mib * MiB);
    expect(Number(result.stdout.trim())).toBeGreaterThan((mib - 1) * MiB);
    expect(result.stderr).toMatch(/No space left on device/);
    expect(result.reason).toBe(`the script exited with code 1; ${bound}`);
  });

  it('holds at most the bound of a /tmp fill, measured from the host while the run still holds it', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/hold.sh', `#!/bin/sh\nhead -c 67108864 /dev/zero > /tmp/fill\nsleep ${mark}\n`);
    const run = executor().run({ skillDir: skill.dir, script: 'scripts/hold.sh', timeoutMs: 15_000 });
    let held = -1;
    const deadline = Date.now() + 10_000;
    while (held < 0 && Date.now() < deadline) {
      const [pid] = await hostPidsWith(mark);
      // The sandbox's /tmp seen from the host, through the sleeping process's root.
      if (pid !== undefined) held = (await stat(`/proc/${pid}/root/tmp/fill`)).size;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const pid of await hostPidsWith(mark)) process.kill(pid, 'SIGKILL');
    await run;
    expect(held).toBeGreaterThan(15 * MiB);
    expect(held).toBeLessThanOrEqual(16 * MiB);
  });

  it('has a read-only root and /dev: nothing is written outside the sized mounts', async () => {
    await skill.write(
      'scripts/root.sh',
      '#!/bin/sh\nfor f in /x /dev/x /run/x /etc/x /home/x; do if touch "$f" 2>/dev/null; then echo "wrote $f"; fi; done\necho done\n',
    );
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/root.sh' });
    expect(result.stdout).toBe('done\n');
  });

  it('cannot make nested namespaces: unshare -rn fails inside', async () => {
    await skill.write('scripts/nest.sh', '#!/bin/sh\nif unshare -rn true; then echo nested; else echo refused; fi\nunshare -U true 2>/dev/null || echo "no user namespace"\n');
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/nest.sh' });
    expect(result.stdout).toBe('refused\nno user namespace\n');
  });

  it('says so when the probe finds the sandbox usable, nested namespaces included', async () => {
    const status = await executor().sandbox();
    expect(status).toMatchObject({ mode: 'bwrap', usable: true });
    expect(status.usable && status.isolates.join('; ')).toContain('no nested user namespaces');
  });
});
