import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('bounded output', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('keeps at most 64 KiB of 20 MB written, counts the rest and finishes', async () => {
    await skill.write(
      'scripts/flood.js',
      "const line = 'x'.repeat(1023) + '\\n';\nfor (let i = 0; i < 20 * 1024; i += 1) process.stdout.write(line);\n",
    );
    const result = await createExecutor({ timeoutMs: 60_000 }).run({ skillDir: skill.dir, script: 'scripts/flood.js' });

    expect(result.status).toBe('ok');
    expect(result.stdoutTruncated).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(64 * KiB);
    expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(63 * KiB);
    expect(result.stdoutDroppedBytes).toBeGreaterThan(20 * MiB - 64 * KiB);
    expect(result.stdoutDroppedBytes).toBeLessThan(20 * MiB);
    expect(result.stdout).toMatch(new RegExp(`output truncated: ${result.stdoutDroppedBytes} more bytes dropped\\]$`));
    expect(result.stderrTruncated).toBe(false);
  });

  it('streams 300 MB through without holding it', async () => {
    await skill.write(
      'scripts/deluge.js',
      "const block = Buffer.alloc(1024 * 1024, 'y');\nfor (let i = 0; i < 300; i += 1) process.stdout.write(block);\n",
    );
    const rssBefore = process.memoryUsage().rss;
    const result = await createExecutor({ timeoutMs: 60_000 }).run({ skillDir: skill.dir, script: 'scripts/deluge.js' });
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(result.status).toBe('ok');
    expect(result.stdoutDroppedBytes).toBeGreaterThan(300 * MiB - 64 * KiB);
    // Buffering it (execa's default) would take 300 MB and more; streaming leaves only garbage chunks behind.
    expect(rssGrowth).toBeLessThan(150 * MiB);
  });

  it('caps stderr on its own', async () => {
    await skill.write('scripts/noisy.sh', '#!/bin/bash\necho fine\nhead -c 300000 /dev/zero | tr "\\0" e >&2\n');
    const result = await createExecutor({ timeoutMs: 20_000 }).run({ skillDir: skill.dir, script: 'scripts/noisy.sh' });
    expect(result.stdout).toBe('fine\n');
    expect(result.stdoutTruncated).toBe(false);
    expect(result.stderrTruncated).toBe(true);
    expect(Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(64 * KiB);
    expect(result.stderrDroppedBytes + result.stderr.indexOf('\n[output truncated')).toBe(300_000);
  });

  it('keeps output under the cap whole', async () => {
    await skill.write('scripts/small.sh', '#!/bin/bash\nprintf "héllo wörld €"\n');
    const result = await createExecutor({ timeoutMs: 20_000 }).run({ skillDir: skill.dir, script: 'scripts/small.sh' });
    expect(result).toMatchObject({ status: 'ok', stdout: 'héllo wörld €', stdoutTruncated: false, stdoutDroppedBytes: 0 });
  });

  // Every alignment of 2-, 3- and 4-byte characters against the cut.
  for (const char of ['é', '€', '😀']) {
    for (let pad = 0; pad < 4; pad += 1) {
      it(`cuts on a code point boundary: "${char}" after ${pad} ASCII bytes`, async () => {
        const text = 'a'.repeat(pad) + char.repeat(400);
        await skill.write('scripts/multi.js', `process.stdout.write(${JSON.stringify(text)});\n`);
        const result = await createExecutor({ timeoutMs: 20_000 }).run({
          skillDir: skill.dir,
          script: 'scripts/multi.js',
          maxOutputBytes: 100,
        });
        expect(result.stdoutTruncated).toBe(true);
        expect(result.stdout).not.toContain('\uFFFD');
        expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(100);
        const kept = result.stdout.slice(0, result.stdout.indexOf('\n[output truncated'));
        expect(kept.length).toBeGreaterThan(0);
        expect(text.startsWith(kept)).toBe(true);
        expect(Buffer.byteLength(kept) + result.stdoutDroppedBytes).toBe(Buffer.byteLength(text));
      });
    }
  }
});
