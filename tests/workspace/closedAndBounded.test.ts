// Issue 35, N10 and N13, through the real sandbox: a workspace filled past its bound with space a file does not
// show (`fallocate --keep-size`) starts no further run, which says why with the size; and a run's `chmod 0777
// /workspace` does not outlive the run, nor a turn: another local account cannot read the folder in between.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import type { Executor } from '../../src/exec/types.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { ChatWorkspaces } from '../../src/workspace/chatWorkspaces.ts';
import { manifestSeal } from '../../src/workspace/manifestSeal.ts';

const MiB = 1024 * 1024;
const asRoot = process.getuid?.() === 0;
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('the workspace between runs (N10, N13)', () => {
  let executor: Executor;
  let store: Store;
  let chats: ChatWorkspaces;
  const chat = `terminal:local/round4-${Date.now()}`;
  beforeEach(async () => {
    executor = createExecutor({ timeoutMs: 20_000 });
    store = await createStore('memory://');
    const root = await mkdtemp(path.join(os.tmpdir(), 'skillbot-ws-'));
    await chmod(root, 0o755);
    chats = new ChatWorkspaces({ settings: { root, maxBytes: 16 * MiB, maxFiles: 1000, ttlDays: 30 }, store, owner: (chatId) => executor.workspaceOwner(chatId), seal: manifestSeal(randomBytes(32)), logger: silentLogger() });
    cleanup.push(() => executor.close(), () => store.close(), () => rm(root, { recursive: true, force: true }));
  });

  it('N10: after space allocated with fallocate --keep-size took the workspace past its bound, the next run does not start, and says why with the size', async () => {
    const workspace = await chats.open(chat);
    const filled = await executor.run({ shell: 'for i in 1 2 3; do : > hidden$i.bin; fallocate --keep-size -l 10M hidden$i.bin || exit 1; done', workspace, chatId: chat });
    expect(filled.workspace?.limitReached).toBe('workspace limit reached (16 MiB)');
    const next = await executor.run({ shell: 'echo started > started.txt; echo started', workspace, chatId: chat });
    expect(next.stdout).toBe('');
    expect(next.reason).toMatch(/the chat's workspace holds \d+\.\d MiB on disk, over its bound of 16 MiB \(WORKSPACE_MAX_MB\)/);
    await expect(stat(path.join(workspace.dir, 'started.txt'))).rejects.toThrow(/ENOENT/);
  });

  it.runIf(asRoot)('N13: a run that opens /workspace to all leaves it closed when it ends, and a new turn closes it again', async () => {
    const workspace = await chats.open(chat);
    const opened = await executor.run({ shell: 'chmod 0777 /workspace && echo secret > notes.txt && chmod 0644 notes.txt', workspace, chatId: chat });
    expect(opened.status, opened.reason).toBe('ok');
    // Right after the run, before any other: a second account on the host reads nothing.
    expect((await stat(workspace.dir)).mode & 0o777).toBe(0o700);
    const other = (...args: string[]) => execFileSync('setpriv', ['--reuid=4242', '--regid=4242', '--clear-groups', ...args], { stdio: 'pipe' });
    expect(() => other('cat', path.join(workspace.dir, 'notes.txt'))).toThrow(/Permission denied/);
    // Opened from outside the run between turns: the next turn's open closes it.
    await chmod(workspace.dir, 0o777);
    await chats.open(chat);
    expect((await stat(workspace.dir)).mode & 0o777).toBe(0o700);
  });
});
