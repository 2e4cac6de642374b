// Dependencies through the real engine and sandbox: a skill's own `core/` package is no missing dependency and runs;
// a Node package installed the way the advice says (`npm install -g`) is found by a skill's script; each way a run
// shows something missing gives the person a notice naming what to install.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HostView, missingOnHost, scanSkillDependencies } from '../../src/skills/dependencies/index.ts';
import { stepsBrain as steps, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';

const run = promisify(execFile);
// A package name nobody publishes: installed from a local tarball, so no registry is asked.
const GLOBAL_PKG = 'skillbot-global-probe-xyz';

const GIF_SKILL = {
  name: 'gif-maker',
  description: 'Make a small animation description from frames.',
  body: [
    '# GIF maker',
    'Run `scripts/make.py N` to count N frames with the core package.',
    '```python',
    'from core.frames import count_frames',
    '```',
  ].join('\n'),
  files: {
    'core/__init__.py': '',
    'core/frames.py': 'def count_frames(n):\n    return f"{n} frames"\n',
    'scripts/make.py': '#!/usr/bin/env python3\nimport sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))\nfrom core.frames import count_frames\nprint(count_frames(int(sys.argv[1])))\n',
  },
};

const SLIDES_SKILL = {
  name: 'slides-js',
  description: 'Build slides with a global Node package.',
  body: '# Slides\nRun `scripts/build.js`.',
  files: { 'scripts/build.js': `const probe = require('${GLOBAL_PKG}');\nconsole.log(probe.hello());\n` },
};

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a skill's own modules", () => {
  it('a core/ package importable from the skill folder is not reported missing, and the script using it runs', async () => {
    const root = await mkdtemp(join(tmpdir(), 'skillbot-core-'));
    try {
      await mkdir(join(root, 'gif-maker', 'core'), { recursive: true });
      await mkdir(join(root, 'gif-maker', 'scripts'), { recursive: true });
      for (const [path, text] of Object.entries(GIF_SKILL.files)) await writeFile(join(root, 'gif-maker', path), text);
      const missing = missingOnHost(await scanSkillDependencies(join(root, 'gif-maker')), new HostView(), join(root, 'gif-maker'));
      expect(missing.map((dependency) => dependency.name)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    const seen: string[] = [];
    harness = await startEngine({ skills: [GIF_SKILL], answer: 'yes_once' });
    harness.fake.setBrain(steps([toolUseReply('run_skill_script', { skill_id: 'gif-maker', script: 'scripts/make.py', args: ['12'] }), textReply('done')], seen));
    await harness.say('make it');
    expect(seen[0]).toContain('12 frames');
    expect(seen[0]).toContain('status="ran"');
  });
});

describe('a global Node package installed as advised', () => {
  let prefix = '';
  beforeAll(async () => {
    prefix = (await run('npm', ['prefix', '-g'])).stdout.trim();
    const dir = await mkdtemp(join(tmpdir(), 'skillbot-npm-'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: GLOBAL_PKG, version: '1.0.0', main: 'index.js' }));
    await writeFile(join(dir, 'index.js'), "exports.hello = () => 'hello from the global package';\n");
    const packed = (await run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: dir })).stdout.trim().split('\n').at(-1) ?? '';
    // The advice's own command, offline: a tarball is copied into the global folder.
    await run('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', join(dir, packed)]);
    await rm(dir, { recursive: true, force: true });
  }, 120_000);
  afterAll(async () => {
    await run('npm', ['uninstall', '-g', GLOBAL_PKG]).catch(() => undefined);
  }, 120_000);

  it('is found by a skill script inside the sandbox', async () => {
    expect(new HostView().hasNodePackage(GLOBAL_PKG)).toBe(true);
    expect(prefix).not.toBe('');
    const seen: string[] = [];
    harness = await startEngine({ skills: [SLIDES_SKILL], answer: 'yes_once' });
    harness.fake.setBrain(steps([toolUseReply('run_skill_script', { skill_id: 'slides-js', script: 'scripts/build.js' }), textReply('done')], seen));
    await harness.say('build');
    expect(seen[0]).toContain('hello from the global package');
  });
});

describe('a failed run that shows something missing', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['python3 -m skillbot_nomod_xyz', 'python -m', /Python module "skillbot_nomod_xyz"/],
    ['python3 -c "import skillbot_nomod_xyz"', 'ModuleNotFoundError', /Python module "skillbot_nomod_xyz"/],
    ['node -e "require(\'skillbot-nopkg-xyz\')"', 'Cannot find module', /Node package "skillbot-nopkg-xyz".*npm install -g skillbot-nopkg-xyz/],
    ['python3 -c "import subprocess; subprocess.run([\'skillbot-noprog-xyz\'])"', 'Errno 2', /program "skillbot-noprog-xyz"/],
    ['skillbot-noprog-xyz --version', 'command not found', /program "skillbot-noprog-xyz"/],
  ];
  it.each(cases)('%s (%s) ends with a notice naming it', async (command, _form, notice) => {
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    harness.fake.setBrain(steps([toolUseReply('bash', { command }), textReply('It failed.')], []));
    const { reply } = await harness.say('try it');
    expect(reply).toMatch(/^It failed\.\n\n_A shell command failed: /);
    expect(reply).toMatch(notice);
  });
});
