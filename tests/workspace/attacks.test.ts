// The workspace as an attack surface (issue 27): what one approved script or shell command can leave in a chat's
// folder, run after run, through the real sandbox. The bot follows no link it did not make (a planted `outputs`
// link never makes root chown a host folder); an `outputs` that is not a folder is moved aside instead of failing
// every later run; the bounds count what the disk counts, at any path length; the folder is closed to other
// local accounts at every run; a chat's processes are bounded by its run's cgroup, not by a uid another chat shares.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdtemp, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { detectBoundsMode } from '../../src/exec/runCgroup.ts';
import type { Executor } from '../../src/exec/types.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { ChatWorkspaces } from '../../src/workspace/chatWorkspaces.ts';
import { withFolder } from '../../src/workspace/folderFd.ts';
import { manifestSeal } from '../../src/workspace/manifestSeal.ts';
import { writeInside } from '../../src/workspace/safeFiles.ts';

const MiB = 1024 * 1024;
const SEAL = manifestSeal(randomBytes(32));
const asRoot = process.getuid?.() === 0;
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function hostDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  // As the product's root: others may enter (the sandbox's user opens the workspace below it).
  await chmod(dir, 0o755);
  // Removed by descriptor: a script may leave paths longer than any path-based removal can name.
  cleanup.push(() => withFolder(path.dirname(dir), (parent) => parent.remove(path.basename(dir))));
  return dir;
}

function spaces(root: string, store: Store, executor: Executor, maxBytes = 64 * MiB, maxFiles = 1000): ChatWorkspaces {
  return new ChatWorkspaces({ settings: { root, maxBytes, maxFiles, ttlDays: 30 }, store, owner: (chatId) => executor.workspaceOwner(chatId), seal: SEAL, logger: silentLogger() });
}

describe('what a script leaves in the workspace', () => {
  let executor: Executor;
  let store: Store;
  const chat = `terminal:local/attack-${Date.now()}`;
  beforeEach(async () => {
    executor = createExecutor({ timeoutMs: 20_000 });
    store = await createStore('memory://');
    cleanup.push(() => executor.close(), () => store.close());
  });

  it.runIf(asRoot)('F1: a planted `outputs` link to a host folder never makes root chown it; the link is moved aside', async () => {
    const victim = await hostDir('skillbot-victim-');
    await writeFile(path.join(victim, 'keep.txt'), 'root data');
    const workspace = await spaces(await hostDir('skillbot-ws-'), store, executor).open(chat);
    const plant = await executor.run({ shell: `rm -rf outputs; ln -s ${victim} outputs; echo planted`, workspace, chatId: chat });
    expect(plant.stdout).toBe('planted\n');
    const next = await executor.run({ shell: 'echo report > outputs/report.txt', workspace, chatId: chat });
    expect((await stat(victim)).uid).toBe(0);
    expect((await stat(path.join(victim, 'keep.txt'))).uid).toBe(0);
    expect(next.status, next.reason).toBe('ok');
    await expect(lstat(path.join(victim, 'report.txt'))).rejects.toThrow(/ENOENT/);
    expect((await lstat(path.join(workspace.dir, 'outputs'))).isDirectory()).toBe(true);
    expect(await readlink(path.join(workspace.dir, 'outputs (moved)'))).toBe(victim);
  });

  it('F6: an `outputs` replaced by a file is moved aside and made again; later runs work', async () => {
    const workspace = await spaces(await hostDir('skillbot-ws-'), store, executor).open(chat);
    await executor.run({ shell: 'rm -rf outputs; echo mine > outputs', workspace, chatId: chat });
    const next = await executor.run({ shell: 'echo ok > outputs/a.txt; echo done', workspace, chatId: chat });
    expect(next.status, next.reason).toBe('ok');
    expect(next.stdout).toBe('done\n');
    expect(await readFile(path.join(workspace.dir, 'outputs (moved)'), 'utf8')).toBe('mine\n');
    expect(next.workspace?.changes.map((change) => change.path)).toEqual(['outputs (moved)', 'outputs/a.txt']);
  });

  it('F5: space allocated past a file\'s size (fallocate --keep-size) counts against the bound', async () => {
    const workspace = await spaces(await hostDir('skillbot-ws-'), store, executor, 16 * MiB).open(chat);
    // Each file stays within the room left (RLIMIT_FSIZE): together they hold 30 MiB of disk at size 0.
    const result = await executor.run({ shell: 'for i in 1 2 3; do : > hidden$i.bin; fallocate --keep-size -l 10M hidden$i.bin || exit 1; done; sleep 1', workspace, chatId: chat });
    expect(result.workspace?.limitReached).toBe('workspace limit reached (16 MiB)');
  });

  it('F5: files under a path longer than PATH_MAX count against the bound', async () => {
    const workspace = await spaces(await hostDir('skillbot-ws-'), store, executor, 8 * MiB).open(chat);
    const name = 'd'.repeat(250);
    // 24 folders of 250 characters: a path of 6,000 characters, past PATH_MAX (4,096).
    const result = await executor.run({ shell: `for i in $(seq 24); do mkdir ${name} && cd ${name} || exit 1; done; for i in $(seq 16); do head -c 1M /dev/urandom > f$i; done; sleep 1`, workspace, chatId: chat });
    expect(result.workspace?.limitReached).toBe('workspace limit reached (8 MiB)');
  });

  it('F5: the idle sweep removes a workspace nested deeper than any path can name', async () => {
    let now = Date.now();
    const root = await hostDir('skillbot-ws-');
    const chats = new ChatWorkspaces({ settings: { root, maxBytes: 64 * MiB, maxFiles: 100_000, ttlDays: 1 }, store, owner: (chatId) => executor.workspaceOwner(chatId), seal: SEAL, logger: silentLogger(), now: () => now });
    const workspace = await chats.open(chat);
    const name = 'n'.repeat(200);
    const deep = await executor.run({ shell: `for i in $(seq 300); do mkdir ${name} && cd ${name} || exit 1; done; echo x > leaf; chmod 500 ..`, workspace, chatId: chat });
    expect(deep.status, deep.stderr).toBe('ok');
    now += 2 * 24 * 60 * 60 * 1000;
    expect(await chats.sweep()).toBe(1);
    await expect(lstat(path.dirname(workspace.dir))).rejects.toThrow(/ENOENT/);
  });

  it.runIf(asRoot)('F10: a workspace a script opened to all is closed to other local accounts again at the next run', async () => {
    const chats = spaces(await hostDir('skillbot-ws-'), store, executor);
    const workspace = await chats.open(chat);
    await executor.run({ shell: 'chmod 777 /workspace; mkdir -p shared; chmod 777 shared', workspace, chatId: chat });
    await executor.run({ shell: 'true', workspace, chatId: chat });
    expect((await stat(workspace.dir)).mode & 0o777).toBe(0o700);
    // Another account (not the chat's uid) cannot reach the folder a script opened to all beneath it.
    expect(() => execFileSync('setpriv', ['--reuid=4242', '--regid=4242', '--clear-groups', 'touch', path.join(workspace.dir, 'shared', 'planted')], { stdio: 'pipe' })).toThrow(/Permission denied/);
  });

  it.runIf(asRoot)('F10: a folder swapped for a link while the bot writes through it never lets the write land outside', async () => {
    const victim = await hostDir('skillbot-victim-');
    const workspace = await spaces(await hostDir('skillbot-ws-'), store, executor).open(chat);
    // A script swaps `sub` between a real folder and a link to a host folder as fast as it can, for 3 s.
    const swap = `import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
os.mkdir('sub')
os.symlink(${JSON.stringify(victim)}, 'other')
end = time.time() + 3
while time.time() < end:
    # renameat2(RENAME_EXCHANGE): \`sub\` is a folder and a link by turns, never missing.
    libc.renameat2(-100, b'sub', -100, b'other', 2)
print('swapped')`;
    await writeInside(workspace.dir, 'swap.py', 'swap.py', Buffer.from(swap), workspace.owner);
    const running = executor.run({ shell: 'python3 swap.py', workspace, chatId: chat });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Meanwhile the bot writes there, as the editor or a script call's files do (each a check, then a use).
    const until = Date.now() + 2000;
    let written = 0;
    for (let i = 0; Date.now() < until; i += 1) {
      await writeInside(workspace.dir, `sub/note${i % 100}.txt`, `sub/note${i % 100}.txt`, Buffer.from('x')).then(() => (written += 1), () => undefined);
      if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const ran = await running;
    expect(ran.stdout, `${ran.reason ?? ''} ${ran.stderr}`).toBe('swapped\n');
    expect(await readdir(victim)).toEqual([]);
    // Writes went on all along: the ones made while `sub` was the real folder landed there.
    expect(written).toBeGreaterThan(0);
  });

  it.runIf(asRoot && detectBoundsMode().kind === 'cgroup')('F14: two chats that share a sandbox uid do not share a process bound', async () => {
    // These two chat ids hash to the same uid (FNV-1a of the id, 60,000 uids).
    const [first, second] = ['terminal:local/uid-1939', 'terminal:local/uid-2026'];
    const bounded = createExecutor({ timeoutMs: 20_000, limits: { maxProcesses: 24 } });
    cleanup.push(() => bounded.close());
    expect(bounded.workspaceOwner(first)).toEqual(bounded.workspaceOwner(second));
    const root = await hostDir('skillbot-ws-');
    const chats = spaces(root, store, bounded);
    const [a, b] = [await chats.open(first), await chats.open(second)];
    const busy = bounded.run({ shell: 'for i in $(seq 18); do sleep 4 & done; sleep 3', workspace: a, chatId: first });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const other = await bounded.run({ shell: 'for i in $(seq 12); do sleep 0.5 & done; wait; echo all started', workspace: b, chatId: second });
    expect(other.stdout).toBe('all started\n');
    // With a shared RLIMIT_NPROC, bash's forks fail ("fork: retry: Resource temporarily unavailable") until the
    // other chat's run ends.
    expect(other.stderr).not.toMatch(/fork/);
    await busy;
  });
});

describe.runIf(process.env.REDIS_URL)('the store copy of a workspace (Redis)', () => {
  let executor: Executor;
  let store: Store;
  let prefix: string;
  beforeEach(async () => {
    executor = createExecutor({ timeoutMs: 20_000 });
    prefix = `ws-attack-${Date.now()}-${Math.random().toString(36).slice(2)}:`;
    store = await createStore(process.env.REDIS_URL ?? '', { keyPrefix: prefix });
    cleanup.push(() => executor.close(), () => store.close());
  });

  it.runIf(asRoot)('F1: a planted `outputs` link restored on another instance never makes root chown the host folder', async () => {
    const chat = `slack:T1:C1/${Date.now()}.0001`;
    const victim = await hostDir('skillbot-victim-');
    const a = spaces(await hostDir('skillbot-ws-a-'), store, executor);
    const b = spaces(await hostDir('skillbot-ws-b-'), store, executor);
    const first = await a.open(chat);
    await executor.run({ shell: `rm -rf outputs; ln -s ${victim} outputs`, workspace: first, chatId: chat });
    await a.save(chat);
    const second = await b.open(chat);
    expect(await readlink(path.join(second.dir, 'outputs'))).toBe(victim);
    const run = await executor.run({ shell: 'echo x > outputs/x.txt', workspace: second, chatId: chat });
    expect((await stat(victim)).uid).toBe(0);
    expect(run.status, run.reason).toBe('ok');
    await expect(lstat(path.join(victim, 'x.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('F4: a manifest written to the store without the state key, or with paths that climb out, writes nothing', async () => {
    const chat = `slack:T1:C1/${Date.now()}.0002`;
    const root = await hostDir('skillbot-ws-');
    const escape = `escaped-${randomBytes(4).toString('hex')}`;
    const content = Buffer.from('planted');
    const sha = (await import('node:crypto')).createHash('sha256').update(content).digest('hex');
    const entries = [
      { kind: 'dir', path: `../../${escape}` },
      { kind: 'file', path: `../${escape}.txt`, size: content.byteLength, sha, data: content.toString('base64') },
      { kind: 'link', path: `../${escape}-link`, target: '/etc' },
    ];
    // As a forger with store access writes it: the plain shape, and a body with a MAC made without the key.
    await store.set('workspaces', `workspace/${chat}`, { version: 99, blobsAt: Date.now(), entries });
    const chats = spaces(root, store, executor);
    await chats.open(chat);
    await store.set('workspaces', `workspace/${chat}`, { body: JSON.stringify({ version: 100, blobsAt: Date.now(), entries }), mac: '0'.repeat(64) });
    await chats.open(chat);
    // Even sealed with the right key, paths that climb out are refused whole.
    const body = JSON.stringify({ version: 101, blobsAt: Date.now(), entries });
    await store.set('workspaces', `workspace/${chat}`, { body, mac: SEAL.seal(chat, body) });
    await chats.open(chat);
    for (const where of [path.join(root, escape), path.join(root, '..', escape), path.join(path.dirname(chats.dirOf(chat)), `${escape}.txt`), path.join(path.dirname(chats.dirOf(chat)), `${escape}-link`)]) {
      await expect(lstat(where)).rejects.toThrow(/ENOENT/);
    }
  });

  it('F4: a file whose stored content does not match its hash is not written', async () => {
    const chat = `slack:T1:C1/${Date.now()}.0003`;
    const a = spaces(await hostDir('skillbot-ws-a-'), store, executor);
    const first = await a.open(chat);
    await writeFile(path.join(first.dir, 'big.bin'), randomBytes(3 * MiB));
    await a.save(chat);
    // A forger swaps a chunk's bytes (the blob keys are the chunks' hashes).
    const raw = await rawRedis();
    const keys = await raw.keys(`${prefix}*workspace-blob*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) await raw.set(key, JSON.stringify({ value: Buffer.alloc(MiB, 1).toString('base64'), expires: null }));
    await raw.quit();
    const b = spaces(await hostDir('skillbot-ws-b-'), store, executor);
    const second = await b.open(chat);
    await expect(lstat(path.join(second.dir, 'big.bin'))).rejects.toThrow(/ENOENT/);
  });

  it('F9: a sparse file is pushed in chunks, never whole in memory', async () => {
    const chat = `slack:T1:C1/${Date.now()}.0004`;
    const a = spaces(await hostDir('skillbot-ws-'), store, executor, 512 * MiB);
    const workspace = await a.open(chat);
    const made = await executor.run({ shell: 'for i in 1 2 3; do truncate -s 90M sparse$i.bin || exit 1; done', workspace, chatId: chat });
    expect(made.status, made.stderr).toBe('ok');
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      await a.save(chat);
    } finally {
      clearInterval(sampler);
    }
    expect((peak - before) / MiB).toBeLessThan(100);
    const b = spaces(await hostDir('skillbot-ws-b-'), store, executor, 512 * MiB);
    expect((await stat(path.join((await b.open(chat)).dir, 'sparse3.bin'))).size).toBe(90 * MiB);
  });

  it('F9: the store holds only the current version of a chat\'s files, and at most its workspace bound', async () => {
    const chat = `slack:T1:C1/${Date.now()}.0005`;
    const a = spaces(await hostDir('skillbot-ws-'), store, executor, 8 * MiB);
    const workspace = await a.open(chat);
    for (let turn = 0; turn < 6; turn += 1) {
      await writeFile(path.join(workspace.dir, 'report.bin'), randomBytes(2 * MiB));
      await a.save(chat);
    }
    const raw = await rawRedis();
    const blobs = await raw.keys(`${prefix}*workspace-blob*`);
    expect(blobs.length).toBe(2);
    // Over the bound (it was lowered, or files are sparse): the store keeps at most the bound of bytes.
    for (let i = 0; i < 6; i += 1) await writeFile(path.join(workspace.dir, `more${i}.bin`), randomBytes(2 * MiB));
    await a.save(chat);
    let stored = 0;
    for (const key of await raw.keys(`${prefix}*`)) stored += Number(await raw.strLen(key));
    await raw.quit();
    // Base64 and JSON make a byte 4/3 bytes in the store.
    expect(stored).toBeLessThan((8 * MiB * 4) / 3 + 64 * 1024);
  });
});

async function rawRedis() {
  const { createClient } = await import('@redis/client');
  const client = createClient({ url: process.env.REDIS_URL });
  await client.connect();
  return client;
}
