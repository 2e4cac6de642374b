// Where chat workspaces go when the default folder sits in a private one (root's home, a 0700 temp folder).
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { pino } from 'pino';
import { silentLogger } from '../../src/ops/log.ts';

let dir = '';
const extra: string[] = [];
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  for (const folder of extra.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** Starts and stops the app; returns the folder its warning says the workspaces moved to. */
async function movedTo(config: ReturnType<typeof loadConfig>): Promise<string | undefined> {
  const lines: string[] = [];
  const app = await createApp(config, pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }), { watchSkills: false });
  await app.close();
  return /chat workspaces are kept in (\/var\/tmp\/skillbot-workspaces-[^;]+);/.exec(lines.join('\n'))?.[1];
}

describe.runIf(process.getuid?.() === 0)('a workspace folder the sandbox user cannot enter (bot as root)', () => {
  it('a WORKSPACES_DIR that was set stops the start with one line naming the folder and the fix', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-wsroot-'));
    await chmod(dir, 0o700);
    const config = loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: dir, WORKSPACES_DIR: join(dir, 'workspaces') });
    await expect(createApp(config, silentLogger(), { watchSkills: false })).rejects.toThrow(
      new RegExp(`^WORKSPACES_DIR \\(${dir}/workspaces\\) cannot be entered by the sandbox's user: ${dir} is mode 0700; make it enterable \\(chmod o\\+x\\)`),
    );
  });

  it('the default one moves to a folder of its own under /var/tmp, and says so', async () => {
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
    extra.push(/kept in (\/var\/tmp\/skillbot-workspaces-[^;]+);/.exec(warning ?? '')?.[1] ?? '');
  });

  it('F3: a folder another local account made at a guessable name is never used; the random one is remembered across starts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-wsroot-'));
    await mkdir(join(dir, 'inner'));
    await chmod(dir, 0o700);
    const config = loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: dir });
    config.workspace.root = join(dir, 'inner', 'workspaces');
    // What the bot used to pick: a name anyone can compute, made first by another account.
    const planted = join('/var/tmp', `skillbot-workspaces-${createHash('sha256').update(resolve(config.workspace.root)).digest('hex').slice(0, 12)}`);
    await mkdir(planted, { mode: 0o777 });
    await chown(planted, 4242, 4242);
    extra.push(planted);
    const first = await movedTo(config);
    expect(first).toBeDefined();
    extra.push(first ?? '');
    expect(first).not.toBe(planted);
    const info = await stat(first ?? '');
    expect([info.uid, info.mode & 0o7777]).toEqual([0, 0o711]);
    expect(await readdir(planted)).toEqual([]);
    expect(await movedTo(config)).toBe(first);
  });

  it('F3: a WORKSPACES_DIR another local account owns or may write in stops the start', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbot-wsroot-'));
    await chmod(dir, 0o755);
    const theirs = join(dir, 'theirs');
    await mkdir(theirs);
    await chown(theirs, 4242, 4242);
    const config = loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: dir, WORKSPACES_DIR: join(theirs, 'workspaces') });
    await expect(createApp(config, silentLogger(), { watchSkills: false })).rejects.toThrow(`WORKSPACES_DIR (${theirs}/workspaces) is not safe for the bot to write in: ${theirs} belongs to uid 4242`);
  });
});
