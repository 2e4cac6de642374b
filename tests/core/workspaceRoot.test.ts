// Where chat workspaces go when the default folder sits in a private one (root's home, a 0700 temp folder).
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { pino } from 'pino';
import { silentLogger } from '../../src/ops/log.ts';

let dir = '';
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(process.getuid?.() === 0)('a workspace folder the sandbox user cannot enter (bot as root)', () => {
  it('a WORKSPACES_DIR that was set stops the start with one line naming the folder and the fix', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-wsroot-'));
    await chmod(dir, 0o700);
    const config = loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: dir, WORKSPACES_DIR: join(dir, 'workspaces') });
    await expect(createApp(config, silentLogger(), { watchSkills: false })).rejects.toThrow(
      new RegExp(`^WORKSPACES_DIR \\(${dir}/workspaces\\) cannot be entered by the sandbox's user: ${dir} is mode 0700; make it enterable \\(chmod o\\+x\\)`),
    );
  });

  it('the default one moves to /var/tmp, and says so', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-wsroot-'));
    await mkdir(join(dir, 'inner'));
    await chmod(dir, 0o700);
    const config = loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: dir });
    config.workspace.root = join(dir, 'inner', 'workspaces');
    const lines: string[] = [];
    const app = await createApp(config, pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }), { watchSkills: false });
    await app.close();
    const warning = lines.find((line) => line.includes('chat workspaces are kept in /var/tmp/skillbot-workspaces-'));
    expect(warning).toContain(`cannot enter ${dir}/inner/workspaces (${dir} is mode 0700)`);
  });
});
