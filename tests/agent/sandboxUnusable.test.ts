// With bwrap unusable, an approved script is refused with the fix named, and the model hears why: never run bare.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type Harness, STATS_SKILL, startHarness } from './harness.ts';

let harness: Harness | undefined;
let fakeBin: string;
const savedPath = process.env.PATH;

beforeEach(async () => {
  // A bwrap that fails as Docker's default seccomp profile makes it fail, first on PATH.
  fakeBin = await mkdtemp(join(tmpdir(), 'skillbot-fake-bwrap-'));
  await writeFile(join(fakeBin, 'bwrap'), "#!/bin/sh\necho 'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted' >&2\nexit 1\n");
  await chmod(join(fakeBin, 'bwrap'), 0o755);
  await chmod(fakeBin, 0o755);
  process.env.PATH = `${fakeBin}:${savedPath ?? ''}`;
});
afterEach(async () => {
  process.env.PATH = savedPath;
  await harness?.close();
  harness = undefined;
  await rm(fakeBin, { recursive: true, force: true });
});

describe('an approved script when the sandbox is unusable', () => {
  it('is refused, and the tool result says what to do', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    harness.app.approvals.addPresenter('terminal', {
      async present(record) {
        setTimeout(() => {
          void harness?.app.approvals.respond({ worldId: record.worldId, approvalId: record.id, option: 'yes_once', userId: record.requesterId });
        }, 5);
        return undefined;
      },
      async resolved() {},
      async tellPrivately() {},
    });
    const results: string[] = [];
    harness.fake.setBrain((req) => {
      const last = lastToolResult(req);
      if (last) {
        results.push(last.content);
        return textReply('the sandbox is broken');
      }
      return toolUseReply('load_skill', { skill_id: 'repo-stats' });
    });
    await harness.say('how big is the repo?');
    expect(results[0]).toContain('sandbox is unusable');
    expect(results[0]).toContain('RTM_NEWADDR');
    expect(results[0]).toContain('--security-opt seccomp=unconfined');
    expect(results[0]).not.toContain('lines: 42');
  });
});
