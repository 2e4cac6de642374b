// The turn's files in and out of the sandbox, and a Stop that ends the whole sandbox at once.
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { hostPidsWith, makeSkill, uniqueSleep, waitGone, watchHostPids, type TempSkill } from './skillFolder.ts';

describe('files of the turn, and stopping a run', () => {
  let skill: TempSkill;
  let host: string;
  beforeEach(async () => {
    skill = await makeSkill();
    host = await mkdtemp(path.join(os.tmpdir(), 'skillbot-io-test-'));
  });
  afterEach(async () => {
    await skill.remove();
    await rm(host, { recursive: true, force: true });
  });

  it('reads the input files read-only and its output files reach the output folder', async () => {
    const inputDir = path.join(host, 'in');
    const outputDir = path.join(host, 'out');
    await mkdir(inputDir);
    await mkdir(outputDir);
    await writeFile(path.join(inputDir, 'data.csv'), 'a,b\n1,2\n');
    await skill.write(
      'scripts/convert.sh',
      '#!/bin/bash\nset -e\necho "$SKILLBOT_INPUT_DIR $SKILLBOT_OUTPUT_DIR"\n' +
        'tr , ";" < "$SKILLBOT_INPUT_DIR/data.csv" > "$SKILLBOT_OUTPUT_DIR/data.txt"\n' +
        'mkdir "$SKILLBOT_OUTPUT_DIR/charts" && echo chart > "$SKILLBOT_OUTPUT_DIR/charts/one.svg"\n' +
        'ln -s /etc/passwd "$SKILLBOT_OUTPUT_DIR/link"\n' +
        'echo x > "$SKILLBOT_INPUT_DIR/data.csv" 2>/dev/null || echo "input is read-only"\n',
    );
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/convert.sh', inputDir, outputDir });
    expect(result.status).toBe('ok');
    expect(result.stdout).toBe('/run/skillbot/input /run/skillbot/output\ninput is read-only\n');
    expect(await readFile(path.join(outputDir, 'data.txt'), 'utf8')).toBe('a;b\n1;2\n');
    expect(await readFile(path.join(outputDir, 'charts', 'one.svg'), 'utf8')).toBe('chart\n');
    // A link the script planted is not carried out (an uploader would follow it).
    expect((await readdir(outputDir)).sort()).toEqual(['charts', 'data.txt']);
    expect((await lstat(path.join(outputDir, 'data.txt'))).isFile()).toBe(true);
    expect(await readFile(path.join(inputDir, 'data.csv'), 'utf8')).toBe('a,b\n1,2\n');
  });

  it('stops the whole sandbox at once when the signal aborts', async () => {
    const mark = uniqueSleep();
    await skill.write('scripts/long.sh', `#!/bin/bash\n( setsid sleep ${mark} & )\nsleep ${mark}\n`);
    const stop = new AbortController();
    const run = createExecutor({ timeoutMs: 60_000 }).run({ skillDir: skill.dir, script: 'scripts/long.sh', signal: stop.signal });
    const watched = watchHostPids(mark, run);
    // Stop once both sleeps are up.
    const started = Date.now();
    while (Date.now() - started < 10_000) {
      if ((await hostPidsWith(mark)).length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stop.abort();
    const { value: result, pids } = await watched;
    expect(result.status).toBe('stopped');
    expect(result.reason).toMatch(/stopped/);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await waitGone(pid)).toBe(true);
  });

  it('does not start a run whose signal is already aborted', async () => {
    await skill.write('scripts/hello.sh', '#!/bin/bash\necho hello\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/hello.sh', signal: AbortSignal.abort() });
    expect(result.status).toBe('stopped');
    expect(result.stdout).toBe('');
  });
});
