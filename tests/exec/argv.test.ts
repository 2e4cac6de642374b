import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

describe('arguments reach the script as argv, never through a shell', () => {
  let skill: TempSkill;
  let args: string[];
  let sideEffects: string[];

  beforeEach(async () => {
    skill = await makeSkill();
    sideEffects = ['dollar', 'backtick', 'semicolon', 'pipe', 'and', 'redirect'].map((name) => path.join(skill.root, name));
    const [dollar, backtick, semicolon, pipe, and, redirect] = sideEffects;
    args = [
      `$(touch ${dollar})`,
      `\`touch ${backtick}\``,
      `; touch ${semicolon}; rm -rf /`,
      `| touch ${pipe}`,
      `&& touch ${and}`,
      `> ${redirect}`,
      '*',
      'scripts/*.sh',
      '~',
      "'single' \"double\" \\back",
      'two words',
      'line\nbreak',
      '$HOME ${PATH}',
      '',
      '-e',
    ];
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('a node script gets every argument verbatim and nothing runs', async () => {
    await skill.write('scripts/argv.js', 'console.log(JSON.stringify(process.argv.slice(2)));\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/argv.js', args });
    expect(result.status).toBe('ok');
    expect(JSON.parse(result.stdout)).toEqual(args);
    for (const file of sideEffects) expect(existsSync(file)).toBe(false);
  });

  it('a bash script gets every argument verbatim and nothing runs', async () => {
    await skill.write('scripts/argv.sh', '#!/bin/bash\nfor arg in "$@"; do printf "%s\\0" "$arg"; done\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/argv.sh', args });
    expect(result.status).toBe('ok');
    expect(result.stdout.split('\0').slice(0, -1)).toEqual(args);
    for (const file of sideEffects) expect(existsSync(file)).toBe(false);
  });
});
