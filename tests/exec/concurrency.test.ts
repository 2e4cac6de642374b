import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

// Each run appends "start" to a shared log, waits for the test's go file, then appends "end".
const gated = `#!/bin/bash
echo "start $RUN_ID" >> "$LOG"
touch "$MARKS/$RUN_ID"
while [ ! -e "$GO" ]; do sleep 0.02; done
echo "end $RUN_ID" >> "$LOG"
`;

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the bound on concurrent runs', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
    await skill.write('scripts/gated.sh', gated);
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('with maxConcurrent 2, four runs never overlap more than two and all finish', async () => {
    const log = path.join(skill.root, 'log');
    const marks = path.join(skill.root, 'marks');
    const go = path.join(skill.root, 'go');
    await writeFile(log, '');
    await mkdir(marks);
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 2 });
    const runs = [1, 2, 3, 4].map((id) =>
      executor.run({ skillDir: skill.dir, script: 'scripts/gated.sh', env: { RUN_ID: String(id), LOG: log, MARKS: marks, GO: go } }),
    );

    // Two start (the test would time out if only one could), then the held slots keep the others queued.
    await waitFor(async () => (await readdir(marks)).length >= 2);
    expect(await readdir(marks)).toHaveLength(2);
    expect(existsSync(go)).toBe(false);
    await writeFile(go, '');

    const results = await Promise.all(runs);
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    let running = 0;
    let most = 0;
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(8);
    for (const line of lines) {
      running += line.startsWith('start') ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(2);
  });

  it('lets a queued run start as soon as a slot frees', async () => {
    await skill.write('scripts/quick.sh', '#!/bin/bash\necho "$RUN_ID"\n');
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 1 });
    const results = await Promise.all(
      [1, 2, 3].map((id) => executor.run({ skillDir: skill.dir, script: 'scripts/quick.sh', env: { RUN_ID: String(id) } })),
    );
    expect(results.map((result) => result.stdout)).toEqual(['1\n', '2\n', '3\n']);
  });
});
