// The chat's workspace in the sandbox: the working directory of every run, where the person's files are read and
// scripts write, bounded while a run writes; loaded skills at /skills/<id>; a shell command runs there too.
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { scanTree } from '../../src/workspace/workspaceTree.ts';
import type { Executor } from '../../src/exec/types.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

const CHAT = 'terminal:local/workspace-test';
const MiB = 1024 * 1024;

describe('a chat workspace in the sandbox', () => {
  let skill: TempSkill;
  let host: string;
  let dir: string;
  let executor: Executor;
  beforeEach(async () => {
    skill = await makeSkill();
    host = await mkdtemp(path.join(os.tmpdir(), 'skillbot-ws-test-'));
    dir = path.join(host, 'files');
    executor = createExecutor({ timeoutMs: 20_000 });
    await mkdir(dir);
    // As the product does: the folder is the chat's sandbox user's (when the bot is root), its parents reachable.
    await chmod(host, 0o755);
    const owner = executor.workspaceOwner(CHAT);
    if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
  });
  afterEach(async () => {
    executor.close();
    await skill.remove();
    await rm(host, { recursive: true, force: true });
  });

  const workspace = (maxBytes = 64 * MiB, maxFiles = 1000) => ({ dir, maxBytes, maxFiles });

  it('runs in /workspace, reads the files there, writes beside them and into outputs, and lists what changed', async () => {
    await writeFile(path.join(dir, 'data.csv'), 'a,b\n1,2\n');
    await skill.write(
      'scripts/convert.sh',
      '#!/bin/bash\nset -e\necho "$PWD $SKILLBOT_INPUT_DIR $SKILLBOT_OUTPUT_DIR"\n' +
        'tr , ";" < "$1" > "$2"\ncp "$2" "$SKILLBOT_OUTPUT_DIR/report.txt"\n',
    );
    const result = await executor.run({ skillDir: skill.dir, skillId: 'convert', script: 'scripts/convert.sh', args: ['data.csv', 'data.txt'], workspace: workspace(), chatId: CHAT });
    expect(result.status, result.stderr).toBe('ok');
    expect(result.stdout).toBe('/workspace /workspace /workspace/outputs\n');
    expect(await readFile(path.join(dir, 'data.txt'), 'utf8')).toBe('a;b\n1;2\n');
    expect(result.workspace?.changes).toEqual([
      { path: 'data.txt', size: 8, created: true },
      { path: 'outputs/report.txt', size: 8, created: true },
    ]);
  });

  it('a later run finds what an earlier one wrote, and sees only the changes it made itself', async () => {
    await skill.write('scripts/step.sh', '#!/bin/bash\nset -e\nmkdir -p unpacked\necho "<w>$1</w>" > unpacked/doc.xml\ncat unpacked/doc.xml\n');
    const first = await executor.run({ skillDir: skill.dir, script: 'scripts/step.sh', args: ['one'], workspace: workspace(), chatId: CHAT });
    expect(first.workspace?.changes.map((change) => change.path)).toEqual(['unpacked/doc.xml']);
    await skill.write('scripts/read.sh', '#!/bin/bash\ncat unpacked/doc.xml; echo more >> notes.txt\n');
    const second = await executor.run({ skillDir: skill.dir, script: 'scripts/read.sh', workspace: workspace(), chatId: CHAT });
    expect(second.stdout).toBe('<w>one</w>\n');
    expect(second.workspace?.changes).toEqual([{ path: 'notes.txt', size: 5, created: true }]);
  });

  it('a shell command runs in the workspace and reads a loaded skill at /skills/<id>, read-only', async () => {
    await skill.write('references/guide.md', '# Guide\n', { executable: false });
    const result = await executor.run({
      shell: 'pwd; cat /skills/guide-skill/references/guide.md; touch /skills/guide-skill/x 2>/dev/null || echo read-only; echo hi > made.txt',
      skills: [{ id: 'guide-skill', dir: skill.dir }],
      workspace: workspace(),
      chatId: CHAT,
    });
    expect(result.status, result.stderr).toBe('ok');
    expect(result.stdout).toBe('/workspace\n# Guide\nread-only\n');
    expect(result.workspace?.changes).toEqual([{ path: 'made.txt', size: 3, created: true }]);
  });

  it('has `python` for skills written for Claude Code, also where the host has only python3', async () => {
    const result = await executor.run({ shell: 'python -c "import sys; print(sys.version_info[0])"', workspace: workspace(), chatId: CHAT });
    expect(result.status, result.stderr).toBe('ok');
    expect(result.stdout).toBe('3\n');
  });

  it('a single file is stopped exactly at the room left in the workspace', async () => {
    const result = await executor.run({ shell: 'head -c 50M /dev/zero > big.bin', workspace: workspace(2 * MiB), chatId: CHAT });
    expect(result.status).not.toBe('ok');
    expect(result.workspace?.limitReached).toBe('workspace limit reached (2 MiB)');
    expect((await stat(path.join(dir, 'big.bin'))).size).toBeLessThanOrEqual(2 * MiB);
  });

  it('a run writing many files is stopped at the bound and told; the host takes a bounded amount', async () => {
    const result = await executor.run({
      shell: 'for i in $(seq 1 2000); do head -c 1M /dev/zero > "f$i.bin" || exit 1; done; echo finished',
      workspace: workspace(4 * MiB),
      chatId: CHAT,
    });
    expect(result.status).toBe('failed');
    expect(result.stdout).not.toContain('finished');
    expect(result.reason).toMatch(/^workspace limit reached \(4 MiB\)/);
    expect(result.workspace?.limitReached).toBe('workspace limit reached (4 MiB)');
    // It tried to write 2000 MiB: what it left is the bound plus at most what one poll of the guard lets through.
    expect((await scanTree(dir)).bytes).toBeLessThan(200 * MiB);
  });

  it('the file-count bound holds too', async () => {
    const result = await executor.run({ shell: 'for i in $(seq 1 5000); do : > "e$i"; done; echo finished', workspace: workspace(64 * MiB, 50), chatId: CHAT });
    expect(result.stdout).not.toContain('finished');
    expect(result.workspace?.limitReached).toBe('workspace limit reached (50 files)');
  });

  it('refuses a workspace without the chat it belongs to, and a shell command without a workspace', async () => {
    expect((await executor.run({ shell: 'true', workspace: workspace() })).reason).toMatch(/chatId a workspace needs the chatId/);
    expect((await executor.run({ shell: 'true' })).reason).toMatch(/workspace a shell command needs a workspace/);
  });
});
