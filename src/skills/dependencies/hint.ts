// Reading a failed run's stderr for the one thing a person can fix: a module or program the host lacks.
import { adviceFor, describeAdvice, KNOWN_PROGRAMS } from './packages.ts';
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
  // Python 3: ModuleNotFoundError: No module named 'pypdf.generic' (also raised as ImportError by some code).
  { pattern: new RegExp(`(?:ModuleNotFoundError|ImportError): No module named ${quote}?([A-Za-z_][\\w.]*)`), read: (m) => python(m[1]) },
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
  // Python's subprocess, a program missing: FileNotFoundError: [Errno 2] No such file or directory: 'soffice'
  { pattern: new RegExp(`FileNotFoundError: \\[Errno 2\\] No such file or directory: ${quote}([\\w.+-]+)${quote}`), read: (m) => knownProgram(m[1]) },
  // Node's child_process: Error: spawn soffice ENOENT
  { pattern: /\bspawn(?:Sync)? ([\w.+-]+) ENOENT/, read: (m) => program(m[1]) },
  // Node: Error: Cannot find module 'docx' / Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'docx' imported from …
  { pattern: /Cannot find (?:module|package) '([^']+)'/, read: (m) => node(m[1]) },
];

/**
 * One sentence telling the person what to install when a failed run's stderr shows a missing Python module,
 * program or Node package; undefined for a success or any other failure.
 */
export function missingDependencyHint(stderr: string, exitCode: number | null | undefined): string | undefined {
  if (exitCode === 0) return undefined;
  let best: { at: number; found: Found } | undefined;
  for (const { pattern, read } of patterns) {
    const match = pattern.exec(stderr);
    if (match === null) continue;
    const found = read(match);
    // The first failure in the output is the cause; later lines are its consequences.
    if (found !== undefined && (best === undefined || match.index < best.at)) best = { at: match.index, found };
  }
  return best === undefined ? undefined : sentence(best.found);
}

function sentence(found: Found): string {
  const how = describeAdvice(adviceFor(found.kind, found.name));
  if (found.lacks !== undefined) {
    return `The host's Python module "${found.name}" has no "${found.lacks}": it is probably older than this skill needs; whoever runs skillbot can install a newer one (${how}).`;
  }
  const what = found.kind === 'program' ? 'program' : found.kind === 'python' ? 'Python module' : 'Node package';
  return `This skill needs the ${what} "${found.name}", which the host skillbot runs on lacks; whoever runs skillbot can install it: ${how}.`;
}

function python(name: string | undefined): Found | undefined {
  const top = name?.split('.')[0];
  return top === undefined || top === '' ? undefined : { kind: 'python', name: top };
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
