// With no usable sandbox, skill code is refused with the fix named, never run bare; `off` runs it bare.
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

describe('when the sandbox cannot be used', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
    // Leaves a mark outside the skill: proof it ran bare.
    await skill.write('scripts/mark.sh', `#!/bin/bash\necho ran > "${path.join(skill.root, 'ran')}"\necho ran\n`);
  });
  afterEach(async () => {
    await skill.remove();
  });

  async function fakeBwrap(stderr: string): Promise<string> {
    const file = path.join(skill.root, 'fake-bwrap');
    await writeFile(file, `#!/bin/sh\necho '${stderr}' >&2\nexit 1\n`);
    await chmod(file, 0o755);
    // As root the sandbox starts as an unprivileged uid, which must be able to reach the program.
    await chmod(skill.root, 0o755);
    return file;
  }

  it('refuses every run when bwrap is missing, saying to install bubblewrap', async () => {
    const executor = createExecutor({ timeoutMs: 10_000, bwrapPath: path.join(skill.root, 'no-such-bwrap') });
    const status = await executor.sandbox();
    expect(status).toMatchObject({ mode: 'bwrap', usable: false });
    const result = await executor.run({ skillDir: skill.dir, script: 'scripts/mark.sh' });
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/sandbox is unusable.*not found.*install the bubblewrap package/);
    expect(result.stdout).toBe('');
  });

  it('refuses every run when user namespaces are blocked, naming the AppArmor and Docker fixes', async () => {
    const bwrapPath = await fakeBwrap('bwrap: setting up uid map: Permission denied');
    const executor = createExecutor({ timeoutMs: 10_000, bwrapPath });
    const result = await executor.run({ skillDir: skill.dir, script: 'scripts/mark.sh' });
    expect(result.status).toBe('refused');
    expect(result.reason).toContain('setting up uid map: Permission denied');
    expect(result.reason).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    expect(result.reason).toContain('--security-opt seccomp=unconfined');
  });

  it('names the fix for a blocked loopback setup too', async () => {
    const bwrapPath = await fakeBwrap('bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted');
    const status = await createExecutor({ timeoutMs: 10_000, bwrapPath }).sandbox();
    expect(status).toMatchObject({ usable: false });
    expect(status.usable === false && status.fix).toMatch(/AppArmor/);
  });

  it('with SCRIPT_SANDBOX=off runs the script bare, in the skill folder itself', async () => {
    const executor = createExecutor({ timeoutMs: 10_000, sandbox: 'off', bwrapPath: path.join(skill.root, 'no-such-bwrap') });
    expect(await executor.sandbox()).toMatchObject({ mode: 'off', usable: true });
    const result = await executor.run({ skillDir: skill.dir, script: 'scripts/mark.sh' });
    expect(result).toMatchObject({ status: 'ok', stdout: 'ran\n' });
  });
});
