import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

describe('stdin', () => {
  let skill: TempSkill;
  beforeEach(async () => {
    skill = await makeSkill();
    await skill.write('scripts/read.sh', '#!/bin/bash\ninput=$(cat)\nprintf "got[%s]" "$input"\n');
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('is closed by default: a script reading it sees end of input at once', async () => {
    // A script waiting on an open stdin would only end at the timeout.
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/read.sh' });
    expect(result).toMatchObject({ status: 'ok', stdout: 'got[]' });
  });

  it('delivers ExecRequest.stdin and then closes it', async () => {
    const event = JSON.stringify({ event: 'pre_execute', skill: 'demo', note: 'ünïcode €' });
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/read.sh', stdin: event });
    expect(result).toMatchObject({ status: 'ok', stdout: `got[${event}]` });
  });

  it('is fine when the script ignores a large stdin and exits', async () => {
    await skill.write('scripts/ignore.sh', '#!/bin/bash\necho done\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({
      skillDir: skill.dir,
      script: 'scripts/ignore.sh',
      stdin: 'z'.repeat(5_000_000),
    });
    expect(result).toMatchObject({ status: 'ok', stdout: 'done\n' });
  });
});
