// Reading a failed run's output for the one thing a person can fix: a module or program the host lacks (or, when the
// missing module is a loaded skill's own, how the code should be run to find it).
import { statSync } from 'node:fs';
import path from 'node:path';
import { skillPathInside } from '../../config/sandboxPaths.ts';
import { HostView } from './host.ts';
import { adviceFor, describeAdvice, KNOWN_PROGRAMS, pipInstall } from './packages.ts';
import { nodePackageName } from './extract.ts';
import type { DependencyKind } from './types.ts';

interface Found {
  kind: DependencyKind;
  name: string;
  /** Set when the module is there but lacks a name: an older version than the code wants. */
  lacks?: string;
}

const quote = `['"‘’\`]`;
const patterns: { pattern: RegExp; read: (match: RegExpExecArray) => Found | undefined }[] = [
  // Python 3: ModuleNotFoundError: No module named 'pypdf.generic' (also raised as ImportError by some code), and
  // `python3 -m markitdown`: /usr/bin/python3: No module named markitdown
  { pattern: new RegExp(`(?:ModuleNotFoundError|ImportError|python[\\d.]*): No module named ${quote}?([A-Za-z_][\\w.]*)`), read: (m) => python(m[1]) },
  // ImportError: cannot import name 'X' from 'pypdf' (…): the module is there, too old or too new.
  {
    pattern: new RegExp(`ImportError: cannot import name ${quote}(\\w+)${quote} from ${quote}([A-Za-z_][\\w.]*)${quote}`),
    read: (m) => ({ ...python(m[2])!, lacks: m[1]! }),
  },
  // bash: line 1: qpdf: command not found / ./x.sh: line 3: foo: command not found / zsh: command not found: foo
  { pattern: /^[^\n]*?:\s*([\w.+-]+): command not found/m, read: (m) => program(m[1]) },
  { pattern: /command not found: ([\w.+-]+)/, read: (m) => program(m[1]) },
  // sh: 1: soffice: not found (dash)
  { pattern: /^[^\n]*?: \d+: ([\w.+-]+): not found/m, read: (m) => program(m[1]) },
  // /usr/bin/env: 'node': No such file or directory (GNU, with either quotes) / env: node: No such file or directory
  { pattern: new RegExp(`(?:^|\\s|/)env: ${quote}?([\\w.+-]+)${quote}?: No such file or directory`, 'm'), read: (m) => program(m[1]) },
  // Python's subprocess, a program missing: FileNotFoundError: [Errno 2] No such file or directory: 'soffice'. Any
  // name when the traceback passes through subprocess's _execute_child (a program it tried to start); else only a
  // program we know, since the same words name a missing data file.
  {
    pattern: new RegExp(`FileNotFoundError: \\[Errno 2\\] No such file or directory: ${quote}([\\w.+-]+)${quote}`),
    read: (m) => (/\b_execute_child\b|\bsubprocess\.py\b/.test(m.input.slice(0, m.index)) ? program(m[1]) : knownProgram(m[1])),
  },
  // Playwright without its browsers: "Executable doesn't exist at /…/ms-playwright/chromium-1091/chrome-linux/chrome"
  { pattern: /Executable doesn't exist at \S*ms-playwright/, read: () => ({ kind: 'program', name: 'playwright-browsers' }) },
  // Node's child_process: Error: spawn soffice ENOENT
  { pattern: /\bspawn(?:Sync)? ([\w.+-]+) ENOENT/, read: (m) => program(m[1]) },
  // Node: Error: Cannot find module 'docx' / Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'docx' imported from …
  { pattern: /Cannot find (?:module|package) '([^']+)'/, read: (m) => node(m[1]) },
];

/** A skill loaded in the chat: its id and the host folder the sandbox shows at /skills/<id>. */
export interface LoadedSkillDir {
  id: string;
  dir: string;
}

/**
 * One sentence telling the person what to install when a failed run's output (stderr, then stdout) shows a missing
 * Python module, program or Node package; undefined for a success or any other failure. A missing Python module that
 * is a loaded skill's own package (slack-gif-creator's `core`, skill-creator's `scripts`) is not something to
 * install: the sentence says how to run the code so that it is found.
 */
export function missingDependencyHint(output: string, exitCode: number | null | undefined, skills: readonly LoadedSkillDir[] = []): string | undefined {
  if (exitCode === 0) return undefined;
  const stderr = output;
  let best: { at: number; found: Found } | undefined;
  for (const { pattern, read } of patterns) {
    const match = pattern.exec(stderr);
    if (match === null) continue;
    const found = read(match);
    // The first failure in the output is the cause; later lines are its consequences.
    if (found !== undefined && (best === undefined || match.index < best.at)) best = { at: match.index, found };
  }
  if (best === undefined) return undefined;
  const own = best.found.kind === 'python' && best.found.lacks === undefined ? skills.find((skill) => ownsPythonModule(skill.dir, best.found.name)) : undefined;
  if (own !== undefined) {
    const inside = skillPathInside(own.id);
    return `"${best.found.name}" is the ${own.id} skill's own Python module (${inside}/${best.found.name}), not a package to install: run the code with PYTHONPATH=${inside} (for example \`PYTHONPATH=${inside} python3 -m ${best.found.name}.…\` or \`PYTHONPATH=${inside} python3 script.py\`).`;
  }
  return sentence(best.found);
}

/** Whether `name` is importable from the skill's folder: `name/` (a package or namespace) or `name.py`. */
function ownsPythonModule(dir: string, name: string): boolean {
  const is = (target: string, directory: boolean) => {
    try {
      const info = statSync(path.join(dir, target));
      return directory ? info.isDirectory() : info.isFile();
    } catch {
      return false;
    }
  };
  return is(name, true) || is(`${name}.py`, false);
}

function sentence(found: Found): string {
  if (found.name === 'playwright-browsers') {
    return `This skill drives a browser with Playwright, whose browsers the host skillbot runs on lacks; whoever runs skillbot can install them where the sandbox sees them: ${describeAdvice(adviceFor('program', found.name))}.`;
  }
  const advice = adviceFor(found.kind, found.name);
  if (found.lacks !== undefined) {
    // The host has the module: its Debian package is what is there, so only a newer one from pip helps.
    const newer = advice.newer;
    const why = newer === undefined ? 'it is probably older than this skill needs' : newer.note;
    return `The host's Python module "${found.name}" has no "${found.lacks}": ${why}. Whoever runs skillbot can install a newer one: ${pipInstall(newer?.pip ?? advice.pip ?? found.name, true)}.`;
  }
  // The output names the module, not its submodule: where the Debian package is known to lack one, say so.
  const newer = advice.newer === undefined ? '' : ` (code importing ${advice.newer.submodules.map((sub) => `${found.name}.${sub}`).join(', ')} needs a newer one: ${advice.newer.note}; ${pipInstall(advice.newer.pip)})`;
  const how = `${describeAdvice(advice)}${newer}`;
  const what = found.kind === 'program' ? 'program' : found.kind === 'python' ? 'Python module' : 'Node package';
  return `This skill needs the ${what} "${found.name}", which the host skillbot runs on lacks; whoever runs skillbot can install it: ${how}.`;
}

/**
 * `No module named 'imageio.v3'` when the host has imageio: not a missing package but too old a one (Debian 12's
 * imageio 2.4 has no v3), said as such.
 */
function python(name: string | undefined): Found | undefined {
  const [top, ...rest] = name?.split('.') ?? [];
  if (top === undefined || top === '') return undefined;
  if (rest.length > 0 && new HostView().hasPythonModule(top)) return { kind: 'python', name: top, lacks: rest.join('.') };
  return { kind: 'python', name: top };
}

function program(name: string | undefined): Found | undefined {
  return name === undefined || name === '' ? undefined : { kind: 'program', name };
}

/** A "No such file" naming a plain word is a missing program only if it is one we know: else it is a data file. */
function knownProgram(name: string | undefined): Found | undefined {
  return name !== undefined && Object.hasOwn(KNOWN_PROGRAMS, name) ? { kind: 'program', name } : undefined;
}

function node(specifier: string | undefined): Found | undefined {
  const name = specifier === undefined ? undefined : nodePackageName(specifier);
  return name === undefined ? undefined : { kind: 'node', name };
}
