// Dependencies are visible: `skillbot skills validate` and `skillbot doctor` (run as a person runs them) list what a
// skill's code uses that this host lacks; a failed run's real stderr becomes one sentence saying what to install.
import { execFile } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMissing, HostView, missingDependencyHint, missingOnHost, scanSkillDependencies, shortMissing } from '../../src/skills/dependencies/index.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.ts';
import { tempDir, writeSkill } from './helpers.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
const MISSING_MODULE = 'skillbot_missing_mod_xyz';
const MISSING_INTERPRETER = 'skillbot-missing-interp-xyz';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { env: options.env ?? { PATH: process.env.PATH ?? '' }, cwd: options.cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

function skillbot(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Ran> {
  return run(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', STORE_URL: 'memory://', ...env }, cwd });
}

// A form skill in the public skills' style: scripts named in a linked forms.md, a helper package of its own.
const FORM_FILES: Record<string, string> = {
  'forms.md': [
    '# Forms',
    '',
    'Fill the fields:',
    '',
    '```python',
    'import json',
    'import skillbot_doc_mod_xyz',
    '```',
    '',
    '```text',
    'import skillbot_not_code_xyz',
    '```',
    '',
    '```bash',
    'python3 scripts/fill_fields.py in.pdf values.json out.pdf',
    'qpdf --check out.pdf',
    'pip install skillbot_pip_mod_xyz',
    'python3 -m skillbot_cli_mod_xyz out.pdf',
    'python3 -c "import json, skillbot_inline_mod_xyz; print(1)"',
    '```',
    '',
  ].join('\n'),
  'scripts/fill_fields.py': [
    '#!/usr/bin/env python3',
    '"""Fill a PDF form.',
    '',
    'import skillbot_in_docstring_xyz',
    '"""',
    'import json, sys',
    'import os.path',
    'from pypdf import PdfReader, PdfWriter',
    `from ${MISSING_MODULE}.sub import thing`,
    'from helpers.fields import read_fields',
    'import field_names',
    'from . import sibling',
    'try:',
    '    import skillbot_optional_mod_xyz',
    'except ImportError:',
    '    skillbot_optional_mod_xyz = None',
    'import subprocess',
    'subprocess.run(["qpdf", "--check", sys.argv[1]])',
    '',
  ].join('\n'),
  'scripts/helpers/__init__.py': '',
  'scripts/helpers/fields.py': 'import docx\n\ndef read_fields(path):\n    return []\n',
  'scripts/field_names.py': 'NAMES = []\n',
  'scripts/render.sh': `#!/usr/bin/env ${MISSING_INTERPRETER}\necho hi\n`,
  'scripts/check.sh': '#!/bin/bash\nset -e\nqpdf --check "$1" | grep -q ok && echo fine\n',
  'scripts/build.js': "const fs = require('fs');\nconst local = require('./local');\nconst missing = require('skillbot-missing-pkg-xyz');\n",
  'scripts/local.js': 'module.exports = {};\n',
  // A package of the skill's own at its root, imported by a script as `core.frames`: never reported missing.
  'core/__init__.py': '',
  'core/frames.py': 'import json\nimport skillbot_core_dep_xyz\n',
  'scripts/gif.py': 'import sys\nfrom core.frames import json\n',
};
const FORM_BODY = '# Form filler\n\nTo fill a PDF form, read FORMS.md and follow it.\n';

let tmp: { path: string; cleanup: () => Promise<void> };
let root: string;
let formDir: string;
let cleanDir: string;

beforeAll(async () => {
  tmp = await tempDir('skillbot-deps-');
  root = join(tmp.path, 'skills');
  await mkdir(root);
  formDir = await writeSkill(root, 'form-filler', undefined, FORM_BODY, FORM_FILES);
  // Uses only what Python and Node ship, what it bundles, and what this host has (python3-pypdf, python3-docx).
  cleanDir = await writeSkill(root, 'clean-tools', undefined, '# Clean\n\nRun `scripts/count.py`.\n', {
    'scripts/count.py': '#!/usr/bin/env python3\nimport csv, json, pathlib\nimport pypdf\nimport docx\nfrom util import helper\n',
    'scripts/util.py': 'def helper():\n    return 1\n',
    'scripts/run.sh': '#!/bin/sh\nset -eu\ncat "$1" | wc -l\n',
  });
  await chmod(tmp.path, 0o755);
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('skills validate lists what a skill uses that the host lacks', () => {
  it('warns per missing module or program, naming the file, the name and what to install, and still exits 0', async () => {
    const { code, stdout } = await skillbot(['skills', 'validate', '--json', formDir, cleanDir]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { skills: { id: string; valid: boolean; errors: unknown[]; warnings: { code: string; message: string; optional?: boolean }[] }[] };
    const form = report.skills.find((skill) => skill.id === 'form-filler')!;
    expect(form.valid).toBe(true);
    const missing = form.warnings.filter((w) => w.code === 'DEPENDENCY_MISSING');
    // What the code needs first, as {code, message}; then what only the documents mention, marked optional.
    const needed = missing.filter((w) => w.optional !== true).map((w) => w.message);
    const mentioned = missing.filter((w) => w.optional === true).map((w) => w.message);
    for (const warning of missing.filter((w) => w.optional !== true)) expect(Object.keys(warning).sort()).toEqual(['code', 'message']);
    expect(missing.map((w) => w.optional === true)).toEqual([false, false, false, false, true, true, true]);
    expect(needed).toContainEqual(expect.stringMatching(new RegExp(`^scripts/fill_fields\\.py:9: imports the Python module "${MISSING_MODULE}".*python3-skillbot-missing-mod-xyz.*python3 -m pip install --break-system-packages ${MISSING_MODULE}`)));
    expect(needed).toContainEqual(expect.stringMatching(new RegExp(`^scripts/render\\.sh:1: runs the program "${MISSING_INTERPRETER}", which this host lacks`)));
    expect(mentioned).toContainEqual(expect.stringMatching(/^forms\.md:7: imports the Python module "skillbot_doc_mod_xyz" \(mentioned in forms\.md; the skill's own code does not use it\)/));
    expect(mentioned).toContainEqual(expect.stringMatching(/^forms\.md:18: imports the Python module "skillbot_cli_mod_xyz" \(mentioned in forms\.md/));
    expect(mentioned).toContainEqual(expect.stringMatching(/^forms\.md:19: imports the Python module "skillbot_inline_mod_xyz" \(mentioned in forms\.md/));
    expect(needed).toContainEqual(expect.stringMatching(/^scripts\/build\.js:3: requires the Node package "skillbot-missing-pkg-xyz".*npm install -g skillbot-missing-pkg-xyz/));
    // Code outside scripts/ counts: a package of the skill's own (core/) that imports what the host lacks.
    expect(needed).toContainEqual(expect.stringMatching(/^core\/frames\.py:2: imports the Python module "skillbot_core_dep_xyz"/));
    const messages = missing.map((w) => w.message);
    // Stdlib, the skill's own modules, relative imports, docstrings, guarded imports, non-code blocks, and what
    // this host has (pypdf, docx, qpdf, bash, python3) are not reported.
    const all = messages.join('\n');
    for (const name of ['skillbot_pip_mod', 'json', '"os"', 'helpers', 'field_names', 'sibling', 'in_docstring', 'optional_mod', 'not_code', 'pypdf', 'docx"', 'qpdf', 'bash', 'python3"', '"fs"', 'local']) {
      expect(all).not.toContain(name);
    }
    expect(messages).toHaveLength(7);
    expect(report.skills.find((skill) => skill.id === 'clean-tools')!.warnings).toEqual([]);
  });

  it('prints the warnings in text output without changing the exit code of an invalid skill', async () => {
    const text = await skillbot(['skills', 'validate', formDir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`warning DEPENDENCY_MISSING: scripts/fill_fields.py:9: imports the Python module "${MISSING_MODULE}"`);
    const broken = await writeSkill(join(tmp.path, 'broken'), 'broken', 'name: broken', '# x\n', { 'scripts/a.py': `import ${MISSING_MODULE}\n` });
    const result = await skillbot(['skills', 'validate', '--json', broken]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { skills: { valid: boolean; warnings: { code: string }[] }[] };
    expect(report.skills[0]!.valid).toBe(false);
    expect(report.skills[0]!.warnings.map((w) => w.code)).toContain('DEPENDENCY_MISSING');
  });
});

describe('skillbot doctor', () => {
  // The doctor checks the model too: a working key, so its exit code says what the dependency line does.
  let anthropic: FakeAnthropic;
  const model = () => ({ ANTHROPIC_API_KEY: 'doctor-key', ANTHROPIC_BASE_URL: anthropic.url });
  beforeAll(async () => {
    anthropic = await startFakeAnthropic({ apiKeys: ['doctor-key'] });
  });
  afterAll(async () => {
    await anthropic.close();
  });

  it('warns, without failing, naming each skill and what it needs', async () => {
    const { code, stdout } = await skillbot(['doctor'], { SKILLS_DIRS: root, ...model() }, tmp.path);
    const line = stdout.split('\n').find((text) => text.slice(6).startsWith('dependencies:')) ?? '';
    expect(line).toMatch(/^warn {2}dependencies: 1 skill\(s\) use what this host lacks: form-filler needs /);
    expect(line).toContain(MISSING_MODULE);
    expect(line).toContain(MISSING_INTERPRETER);
    expect(line).not.toContain('clean-tools');
    expect(code).toBe(0);
  });

  it('says ok when every skill has what it uses', async () => {
    const { code, stdout } = await skillbot(['doctor'], { SKILLS_DIRS: join(root, 'clean-tools'), ...model() }, tmp.path);
    expect(stdout).toMatch(/^ok {4}dependencies: what the code of 1 skill\(s\) uses is on this host/m);
    expect(code).toBe(0);
  });
});

describe('the host check', () => {
  it('finds programs only on the PATH it is given, and names the Debian package', async () => {
    const empty = join(tmp.path, 'empty-bin');
    await mkdir(empty, { recursive: true });
    const dependencies = await scanSkillDependencies(formDir);
    const bare = missingOnHost(dependencies, new HostView({ searchPath: empty, nodePath: '/nonexistent/node' }), formDir);
    const qpdf = bare.find((dependency) => dependency.name === 'qpdf');
    expect(qpdf?.install.debian).toBe('qpdf');
    expect(qpdf?.sites.map((site) => site.file)).toEqual(['scripts/check.sh', 'scripts/fill_fields.py', 'forms.md']);
    // Without python3 on that PATH, the modules cannot be checked: python3 itself is what is missing.
    expect(bare.some((dependency) => dependency.kind === 'python')).toBe(false);
    expect(bare.find((dependency) => dependency.name === 'python3')?.install.debian).toBe('python3');
    const real = missingOnHost(dependencies, new HostView(), formDir);
    expect(real.some((dependency) => dependency.name === 'qpdf' || dependency.name === 'pypdf')).toBe(false);
  });

  it("a package the host has but without a submodule the code imports (Debian 12's imageio 2.4.1 has no v3): said so, with what works", async () => {
    // A python3 of its own whose site holds an imageio as Debian packages 2.4.1: a package folder without v3.
    const prefix = join(tmp.path, 'old-python');
    await mkdir(join(prefix, 'bin'), { recursive: true });
    await writeFile(join(prefix, 'bin', 'python3.11'), '#!/bin/sh\n', { mode: 0o755 });
    await symlink('python3.11', join(prefix, 'bin', 'python3')).catch(() => undefined);
    const site = join(prefix, 'lib', 'python3.11', 'site-packages');
    await mkdir(join(site, 'imageio', 'plugins'), { recursive: true });
    await writeFile(join(site, 'imageio', '__init__.py'), '__version__ = "2.4.1"\n');
    await writeFile(join(site, 'imageio', 'plugins', '__init__.py'), '');
    const dir = await writeSkill(root, 'gif-maker', undefined, '# GIFs\n\nRun `scripts/make.py`.\n', {
      'scripts/make.py': 'import imageio.v3 as iio\nfrom imageio.plugins import ffmpeg\nimport imageio\n',
    });
    const missing = missingOnHost(await scanSkillDependencies(dir), new HostView({ searchPath: join(prefix, 'bin'), nodePath: '/nonexistent/node' }), dir);
    expect(missing.map((dependency) => [dependency.name, dependency.lacks])).toEqual([['imageio', ['v3']]]);
    const [imageio] = missing;
    if (imageio === undefined) throw new Error('imageio not reported');
    expect(describeMissing(imageio)).toBe(
      "scripts/make.py:1 (and 2 more place(s)): imports imageio.v3, which this host's \"imageio\" lacks: Debian 12's python3-imageio is 2.4.1, which has no imageio.v3 (it came with imageio 2.16); pip's current imageio has it; to install a newer one: sudo /usr/bin/python3 -m pip install --break-system-packages --upgrade 'imageio>=2.16'",
    );
    expect(shortMissing(imageio)).toBe("imageio.v3 (a newer imageio: pip 'imageio>=2.16')");
    // A host without imageio at all is not sent to Debian's package, which lacks v3.
    const bare = join(tmp.path, 'bare-python');
    await mkdir(join(bare, 'bin'), { recursive: true });
    await writeFile(join(bare, 'bin', 'python3.11'), '#!/bin/sh\n', { mode: 0o755 });
    await symlink('python3.11', join(bare, 'bin', 'python3')).catch(() => undefined);
    const [absent] = missingOnHost(await scanSkillDependencies(dir), new HostView({ searchPath: join(bare, 'bin'), nodePath: '/nonexistent/node' }), dir);
    expect(absent === undefined ? '' : describeMissing(absent)).toMatch(/imports the Python module "imageio", which this host lacks; to install: sudo \/usr\/bin\/python3 -m pip install --break-system-packages 'imageio>=2\.16'; Debian 12's python3-imageio is 2\.4\.1, which has no imageio\.v3/);
  });

  it('an install line names its installer, not what it installs; `pnpm exec` is a use of pnpm', async () => {
    const dir = await writeSkill(root, 'bundler', undefined, '# Bundler\n\nRun `scripts/bundle.sh`.\n', {
      'scripts/bundle.sh': '#!/bin/sh\npnpm add -D parcel html-inline\npnpm exec parcel build index.html\nnpm install -g skillbot-nopkg-xyz\n',
    });
    const empty = join(tmp.path, 'empty-bin');
    await mkdir(empty, { recursive: true });
    const missing = missingOnHost(await scanSkillDependencies(dir), new HostView({ searchPath: empty, nodePath: '/nonexistent/node' }), dir);
    expect(missing.map((dependency) => [dependency.name, dependency.sites.map((site) => site.line)])).toEqual([
      ['pnpm', [2, 3]],
      ['npm', [4]],
    ]);
  });
});

describe('missingDependencyHint, on stderr from real failures', () => {
  // A PATH with no programs on it: the failures a host without the package gives. An empty HOME, as in the
  // sandbox: bash reads ~/.bashrc when its stdin is a socket, and this machine's names programs it lacks.
  const noPath = { PATH: '/nonexistent-skillbot-bin', HOME: '/nonexistent-skillbot-home' };

  it('a Python module: ModuleNotFoundError', async () => {
    const failed = await run('/usr/bin/python3', ['-c', `import ${MISSING_MODULE}.sub`]);
    expect(failed.code).toBe(1);
    expect(missingDependencyHint(failed.stderr, failed.code)).toMatch(new RegExp(`Python module "${MISSING_MODULE}".*pip install --break-system-packages ${MISSING_MODULE}`));
    // Without the site folders, yaml is missing: the hint names Debian's package and pip's name.
    const yaml = await run('/usr/bin/python3', ['-I', '-S', '-c', 'import yaml']);
    expect(missingDependencyHint(yaml.stderr, yaml.code)).toBe(
      `This skill needs the Python module "yaml", which the host skillbot runs on lacks; whoever runs skillbot can install it: Debian's python3-yaml (or: sudo /usr/bin/python3 -m pip install --break-system-packages PyYAML).`,
    );
  });

  it('a Python module run with -m, and a program Python could not start, whatever its name', async () => {
    const module = await run('/usr/bin/python3', ['-m', MISSING_MODULE]);
    expect(module.stderr).toContain(`No module named ${MISSING_MODULE}`);
    expect(missingDependencyHint(module.stderr, module.code)).toMatch(new RegExp(`Python module "${MISSING_MODULE}"`));
    const started = await run('/usr/bin/python3', ['-c', `import subprocess; subprocess.run(["${MISSING_INTERPRETER}", "--version"])`]);
    expect(missingDependencyHint(started.stderr, started.code)).toMatch(new RegExp(`program "${MISSING_INTERPRETER}".*Debian's ${MISSING_INTERPRETER} if there is such a package`));
  });

  it("a module that is a loaded skill's own package: how to run the code so it is found, not what to install", async () => {
    const failed = await run('/usr/bin/python3', ['-c', 'from core.frames import json'], { cwd: tmp.path });
    expect(missingDependencyHint(failed.stderr, failed.code, [{ id: 'form-filler', dir: formDir }])).toBe(
      '"core" is the form-filler skill\'s own Python module (/skills/form-filler/core), not a package to install: run the code with PYTHONPATH=/skills/form-filler (for example `PYTHONPATH=/skills/form-filler python3 -m core.…` or `PYTHONPATH=/skills/form-filler python3 script.py`).',
    );
  });

  it('reads the output a script printed on stdout too', async () => {
    const failed = await run('/usr/bin/python3', ['-c', `import sys\ntry:\n    import ${MISSING_MODULE}\nexcept ImportError as e:\n    print(f"ModuleNotFoundError: {e}"); sys.exit(1)`]);
    expect(failed.stderr).toBe('');
    expect(missingDependencyHint(`${failed.stderr}\n${failed.stdout}`, failed.code)).toMatch(new RegExp(`Python module "${MISSING_MODULE}"`));
  });

  it('a submodule the host\'s older package lacks (imageio.v3 on Debian 12): too old, not missing', async () => {
    const failed = await run('/usr/bin/python3', ['-c', 'import json.skillbot_no_such_submodule']);
    expect(missingDependencyHint(failed.stderr, failed.code)).toMatch(/^The host's Python module "json" has no "skillbot_no_such_submodule": it is probably older than this skill needs/);
  });

  it("imageio missing altogether: Debian's package is named with what it lacks, and the pip line that works", () => {
    const stderr = 'Traceback (most recent call last):\n  File "/skills/slack-gif-creator/core/gif_builder.py", line 12, in <module>\n    import imageio.v3 as imageio\nModuleNotFoundError: No module named \'imageio\'\n';
    expect(missingDependencyHint(stderr, 1)).toBe(
      "This skill needs the Python module \"imageio\", which the host skillbot runs on lacks; whoever runs skillbot can install it: Debian's python3-imageio (or: sudo /usr/bin/python3 -m pip install --break-system-packages imageio) (code importing imageio.v3 needs a newer one: Debian 12's python3-imageio is 2.4.1, which has no imageio.v3 (it came with imageio 2.16); pip's current imageio has it; sudo /usr/bin/python3 -m pip install --break-system-packages 'imageio>=2.16').",
    );
  });

  it('a Python module too old: cannot import name', async () => {
    const failed = await run('/usr/bin/python3', ['-c', 'from pypdf import SkillbotNoSuchName']);
    expect(missingDependencyHint(failed.stderr, failed.code)).toMatch(/"pypdf" has no "SkillbotNoSuchName".*older.*pip install --break-system-packages --upgrade pypdf\.$/);
  });

  it('a command: bash, sh (dash), env, Python subprocess and Node child_process', async () => {
    const bash = await run('/bin/bash', ['-c', 'qpdf --check x.pdf'], { env: noPath });
    expect(bash.code).toBe(127);
    expect(missingDependencyHint(bash.stderr, bash.code)).toMatch(/program "qpdf".*Debian's qpdf\.$/);
    const sh = await run('/bin/sh', ['-c', 'soffice --headless'], { env: noPath });
    expect(missingDependencyHint(sh.stderr, sh.code)).toMatch(/program "soffice".*libreoffice-core/);
    const env = await run('/usr/bin/env', ['pdftoppm', '-v'], { env: noPath });
    expect(missingDependencyHint(env.stderr, env.code)).toMatch(/program "pdftoppm".*poppler-utils/);
    const python = await run('/usr/bin/python3', ['-c', 'import subprocess; subprocess.run(["pandoc", "-v"])'], { env: noPath });
    expect(missingDependencyHint(python.stderr, python.code)).toMatch(/program "pandoc".*Debian's pandoc/);
    const node = await run(process.execPath, ['-e', "require('child_process').execFileSync('pdftotext', ['-v'])"], { env: noPath });
    expect(missingDependencyHint(node.stderr, node.code)).toMatch(/program "pdftotext".*poppler-utils/);
  });

  it('a Node package: require and import', async () => {
    const cjs = await run(process.execPath, ['-e', "require('pptxgenjs')"], { cwd: tmp.path });
    expect(missingDependencyHint(cjs.stderr, cjs.code)).toMatch(/Node package "pptxgenjs".*npm install -g pptxgenjs/);
    const esm = await run(process.execPath, ['--input-type=module', '-e', "import '@skillbot-missing/pkg-xyz/sub';"], { cwd: tmp.path });
    expect(missingDependencyHint(esm.stderr, esm.code)).toMatch(/Node package "@skillbot-missing\/pkg-xyz"/);
  });

  it('nothing for other failures, a missing data file, a missing local script, or a success', async () => {
    const other = await run('/usr/bin/python3', ['-c', 'raise SystemExit("usage: fill.py IN OUT")']);
    expect(missingDependencyHint(other.stderr, other.code)).toBeUndefined();
    const dataFile = await run('/usr/bin/python3', ['-c', 'open("input.pdf")'], { cwd: tmp.path });
    expect(dataFile.stderr).toContain('No such file or directory');
    expect(missingDependencyHint(dataFile.stderr, dataFile.code)).toBeUndefined();
    const local = await run(process.execPath, ['-e', "require('./nothing-here.js')"], { cwd: tmp.path });
    expect(missingDependencyHint(local.stderr, local.code)).toBeUndefined();
    expect(missingDependencyHint("ModuleNotFoundError: No module named 'yaml'", 0)).toBeUndefined();
  });
});
