// Chat workspaces on the host and in the shared store: what one instance leaves, another restores exactly (files,
// folders, removals, symlinks as links); idle ones are removed after their TTL.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { ChatWorkspaces } from '../../src/workspace/chatWorkspaces.ts';
import { manifestSeal } from '../../src/workspace/manifestSeal.ts';

const REDIS_URL = process.env.REDIS_URL;
const SEAL = manifestSeal(randomBytes(32));
const DAY = 24 * 60 * 60 * 1000;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-ws-unit-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function workspaces(root: string, store: Store, now = () => Date.now()): ChatWorkspaces {
  return new ChatWorkspaces({ settings: { root, maxBytes: 64 * 1024 * 1024, maxFiles: 1000, ttlDays: 30 }, store, owner: () => undefined, seal: SEAL, logger: silentLogger(), now });
}

describe('idle workspaces', () => {
  it('are removed after WORKSPACE_TTL_DAYS without a turn; used ones stay', async () => {
    const root = await tempDir();
    const store = await createStore('memory://');
    cleanup.push(() => store.close());
    let now = Date.now();
    const spaces = workspaces(root, store, () => now);
    const old = await spaces.open('terminal:local/old');
    await writeFile(join(old.dir, 'a.txt'), 'a');
    now += 20 * DAY;
    const fresh = await spaces.open('terminal:local/fresh');
    now += 11 * DAY;
    expect(await spaces.sweep()).toBe(1);
    await expect(lstat(old.dir)).rejects.toThrow(/ENOENT/);
    expect((await lstat(fresh.dir)).isDirectory()).toBe(true);
  });
});

describe.runIf(REDIS_URL)('a workspace moving between instances (Redis)', () => {
  it('restores files, folders and links (as links), and what the last instance removed is gone', async () => {
    const store = await createStore(REDIS_URL ?? '', { keyPrefix: `ws-test-${Date.now()}-${Math.random()}:` });
    cleanup.push(() => store.close());
    const [a, b] = [workspaces(await tempDir(), store), workspaces(await tempDir(), store)];
    const chat = 'slack:T1:C1/1700000000.000100';

    const first = await a.open(chat);
    await mkdir(join(first.dir, 'unpacked', 'word'), { recursive: true });
    await writeFile(join(first.dir, 'unpacked', 'word', 'document.xml'), '<w>one</w>');
    await writeFile(join(first.dir, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
    await symlink('/etc/passwd', join(first.dir, 'planted'));
    await a.save(chat);

    const second = await b.open(chat);
    expect(await readFile(join(second.dir, 'unpacked', 'word', 'document.xml'), 'utf8')).toBe('<w>one</w>');
    expect((await readFile(join(second.dir, 'big.bin'))).equals(Buffer.alloc(3 * 1024 * 1024, 7))).toBe(true);
    expect(await readlink(join(second.dir, 'planted'))).toBe('/etc/passwd');

    // B changes it; A, when the chat comes back, gets B's version, removals included.
    await writeFile(join(second.dir, 'unpacked', 'word', 'document.xml'), '<w>two</w>');
    await rm(join(second.dir, 'big.bin'));
    await b.save(chat);
    const back = await a.open(chat);
    expect(await readFile(join(back.dir, 'unpacked', 'word', 'document.xml'), 'utf8')).toBe('<w>two</w>');
    await expect(lstat(join(back.dir, 'big.bin'))).rejects.toThrow(/ENOENT/);
  });

  it('an instance that already has the newest version fetches nothing', async () => {
    const store = await createStore(REDIS_URL ?? '', { keyPrefix: `ws-test-${Date.now()}-${Math.random()}:` });
    cleanup.push(() => store.close());
    const a = workspaces(await tempDir(), store);
    const chat = 'discord:G1:C1/T1';
    const opened = await a.open(chat);
    await writeFile(join(opened.dir, 'x.txt'), 'x');
    await a.save(chat);
    const before = store.roundTrips;
    await a.open(chat);
    // One read of the manifest, nothing else from the store.
    expect(store.roundTrips - before).toBe(1);
  });
});
