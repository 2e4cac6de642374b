// Reading uses out of code text, without running it: Python imports, Node requires, commands in shell code and
// in strings a script hands to subprocess. Heuristics that err towards silence: only known program names count
// outside shebangs, and what a scan cannot see (computed names, plugins) a failed run reports instead (hint.ts).
import { KNOWN_PROGRAMS } from './packages.ts';
import type { DependencyKind } from './types.ts';

export interface RawUse {
  kind: DependencyKind;
  name: string;
  /** 1-based, within the text given. */
  line: number;
  optional: boolean;
  /** A Python import of a submodule (`imageio.v3`): the dotted part after the top module, which an old version may lack. */
  submodule?: string;
}

export type CodeLanguage = 'python' | 'shell' | 'node';

const pythonName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const nodeLanguages = new Set(['javascript', 'js', 'node', 'mjs', 'cjs', 'jsx', 'typescript', 'ts', 'tsx']);
const shellLanguages = new Set(['bash', 'sh', 'shell', 'console', 'zsh', 'shell-session', 'terminal']);

/** The language of a fenced block's info string (```python), or of a file by its extension or shebang. */
export function languageOfInfo(info: string): CodeLanguage | undefined {
  const word = info.trim().split(/[\s{]/)[0]?.toLowerCase() ?? '';
  if (word === 'python' || word === 'py' || word === 'python3') return 'python';
  if (shellLanguages.has(word)) return 'shell';
  if (nodeLanguages.has(word)) return 'node';
  return undefined;
}

export function languageOfFile(path: string, firstLine: string): CodeLanguage | undefined {
  const interpreter = shebangProgram(firstLine);
  if (interpreter !== undefined) {
    const name = interpreter.slice(interpreter.lastIndexOf('/') + 1);
    if (/^python[0-9.]*$/.test(name)) return 'python';
    if (/^(ba|da|z|k|mk)?sh$/.test(name)) return 'shell';
    if (/^(node|nodejs)$/.test(name)) return 'node';
    return undefined;
  }
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  if (ext === 'py') return 'python';
  if (ext === 'sh' || ext === 'bash') return 'shell';
  if (['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'].includes(ext)) return 'node';
  return undefined;
}

/** The program a `#!` line runs: `/bin/bash`, or `python3` for `#!/usr/bin/env [-S] python3`. */
export function shebangProgram(firstLine: string): string | undefined {
  if (!firstLine.startsWith('#!')) return undefined;
  const words = firstLine.slice(2).trim().split(/\s+/).filter((word) => word !== '');
  const [program, ...rest] = words;
  if (program === undefined) return undefined;
  if (program.endsWith('/env')) {
    const named = rest.find((word) => !word.startsWith('-') && !word.includes('='));
    return named;
  }
  return program;
}

/** Every use in `text` of the given language. */
export function usesIn(text: string, language: CodeLanguage): RawUse[] {
  if (language === 'python') return pythonUses(text);
  if (language === 'node') return nodeUses(text);
  return shellUses(text);
}

// ---- Python -------------------------------------------------------------------------------------------------

const importLine = /^(\s*)import\s+(.+)$/;
const fromLine = /^(\s*)from\s+(\.*)([A-Za-z_][\w.]*)?\s+import\b/;
const dynamicImport = /(?:__import__|import_module)\(\s*['"]([A-Za-z_][\w.]*)['"]/g;
const runsPrograms = /\bsubprocess\b|\bos\.(?:system|popen|exec\w*|spawn\w*)\b|\bPopen\b|\bshutil\.which\b/;
const stringLiteral = /(['"])((?:(?!\1)[^\\\n]|\\.)*)\1/g;

interface TryBlock {
  indent: number;
  imports: RawUse[];
  inHandler: boolean;
}

function pythonUse(dotted: string, line: number): RawUse {
  const [top = '', ...rest] = dotted.split('.');
  return { kind: 'python', name: top, line, optional: false, ...(rest.length > 0 && rest.every((part) => pythonName.test(part)) ? { submodule: rest.join('.') } : {}) };
}

function pythonUses(text: string): RawUse[] {
  const uses: RawUse[] = [];
  const lines = text.split('\n');
  const callsPrograms = runsPrograms.test(text);
  let inString: string | undefined;
  const tries: TryBlock[] = [];
  lines.forEach((raw, index) => {
    const line = index + 1;
    // Docstrings and other triple-quoted text: code shown there is not run.
    const quotes = [...raw.matchAll(/"""|'''/g)].map((match) => match[0]);
    const startsInString = inString !== undefined;
    for (const quote of quotes) {
      if (inString === undefined) inString = quote;
      else if (inString === quote) inString = undefined;
    }
    if (startsInString || quotes.length > 0) return;
    const code = raw.replace(/\s+#.*$/, '');
    if (code.trim() === '' || code.trim().startsWith('#')) return;
    const indent = code.length - code.trimStart().length;
    closeTries(tries, indent, code.trim());
    if (/^try\s*:/.test(code.trim())) {
      tries.push({ indent, imports: [], inHandler: false });
      return;
    }
    const found: RawUse[] = [];
    const plain = importLine.exec(code);
    if (plain) {
      for (const part of (plain[2] ?? '').split(';')[0]!.split(',')) {
        const dotted = part.trim().split(/\s+/)[0] ?? '';
        if (pythonName.test(dotted.split('.')[0] ?? '')) found.push(pythonUse(dotted, line));
      }
    }
    const from = fromLine.exec(code);
    if (from && (from[2] ?? '') === '' && from[3] !== undefined) found.push(pythonUse(from[3], line));
    for (const match of code.matchAll(dynamicImport)) found.push({ kind: 'python', name: match[1]!.split('.')[0]!, line, optional: false });
    const open = tries.at(-1);
    if (open !== undefined && !open.inHandler) open.imports.push(...found);
    uses.push(...found);
    if (callsPrograms) uses.push(...programsInStrings(code, line));
  });
  return uses;
}

/** Leaving try blocks by indentation: imports in a try whose handler catches ImportError are optional. */
function closeTries(tries: TryBlock[], indent: number, code: string): void {
  while (tries.length > 0) {
    const top = tries.at(-1)!;
    if (indent > top.indent) return;
    if (indent === top.indent && /^except\b/.test(code)) {
      if (/^except\s*(:|\(?[^:]*\b(ImportError|ModuleNotFoundError|Exception|BaseException)\b)/.test(code)) {
        for (const use of top.imports) use.optional = true;
      }
      top.inHandler = true;
      return;
    }
    if (indent === top.indent && /^(else|finally)\b/.test(code)) {
      top.inHandler = true;
      return;
    }
    tries.pop();
  }
}

/** `["soffice", "--headless"]`, `"pdftoppm -r 150 …"`: a string whose first word is a known program. */
function programsInStrings(code: string, line: number): RawUse[] {
  const uses: RawUse[] = [];
  for (const match of code.matchAll(stringLiteral)) {
    const first = (match[2] ?? '').trim().split(/\s+/)[0] ?? '';
    if (Object.hasOwn(KNOWN_PROGRAMS, first)) uses.push({ kind: 'program', name: first, line, optional: false });
  }
  return uses;
}

// ---- Node ---------------------------------------------------------------------------------------------------

const nodeModule = /\brequire\(\s*(['"])([^'"\n]+)\1\s*\)|\bimport\s*\(\s*(['"])([^'"\n]+)\3\s*\)|^\s*import\s+(?:[\w*{}\s,$]+\s+from\s+)?(['"])([^'"\n]+)\5|^\s*export\s+[\w*{}\s,$]+\s+from\s+(['"])([^'"\n]+)\7/gm;
const childProcess = /\bchild_process\b|\b(?:execa|execSync|execFileSync|spawnSync|spawn|execFile)\s*\(/;
const nodeCall = /\b(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|execa)\s*\(\s*(['"`])([^'"`\n]+)\1/g;

function nodeUses(text: string): RawUse[] {
  const uses: RawUse[] = [];
  for (const match of text.matchAll(nodeModule)) {
    const specifier = match[2] ?? match[4] ?? match[6] ?? match[8] ?? '';
    const name = nodePackageName(specifier);
    if (name !== undefined) uses.push({ kind: 'node', name, line: lineAt(text, match.index), optional: false });
  }
  if (childProcess.test(text)) {
    for (const match of text.matchAll(nodeCall)) {
      const first = (match[2] ?? '').trim().split(/\s+/)[0] ?? '';
      if (Object.hasOwn(KNOWN_PROGRAMS, first)) uses.push({ kind: 'program', name: first, line: lineAt(text, match.index), optional: false });
    }
  }
  return uses;
}

/** `docx`, `@scope/pkg/sub` → `@scope/pkg`; relative, absolute, URL and `node:` specifiers → undefined. */
export function nodePackageName(specifier: string): string | undefined {
  if (/^(\.|\/|node:|[a-z]+:\/\/|data:|file:)/.test(specifier)) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return name !== undefined && /^(@[\w.-]+\/)?[\w.-]+$/.test(name) ? name : undefined;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

// ---- Shell --------------------------------------------------------------------------------------------------

// A word in command position: line start, after | ; & ( `, $(, or a prefix word that runs what follows.
const commandWord = /(?:^|[|;&(`]|\$\(|\b(?:sudo|exec|time|nohup|xargs|command|then|do|else|env|timeout\s+\S+)\s)\s*(?:[A-Za-z_]\w*=\S*\s+)*([A-Za-z0-9][\w.+-]*)/g;
// Lines that install things rather than use them: the packages they name are what to install, not a need; the
// installer itself (`pnpm add …` needs pnpm) is. `pnpm exec`, `npm run` and the like are ordinary commands.
const installer = /^\s*(?:sudo\s+)?(pip3?|python3?\s+-m\s+pip|npm|pnpm|yarn|apt|apt-get|brew|uv|conda)\s+(?:-\S+\s+)*(?:install|i|add|ci|pip\s+install)\b/;
const inlinePython = /\bimport\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)|\bfrom\s+([A-Za-z_][\w.]*)\s+import\b/g;

function shellUses(text: string): RawUse[] {
  const uses: RawUse[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const code = raw.replace(/^\s*\$\s+/, '').replace(/(^|\s)#.*$/, '');
    if (code.trim() === '') return;
    const installing = installer.exec(code);
    if (installing !== null) {
      const tool = installing[1] ?? '';
      if (Object.hasOwn(KNOWN_PROGRAMS, tool)) uses.push({ kind: 'program', name: tool, line, optional: false });
      return;
    }
    for (const match of code.matchAll(commandWord)) {
      const word = match[1] ?? '';
      if (Object.hasOwn(KNOWN_PROGRAMS, word)) uses.push({ kind: 'program', name: word, line, optional: false });
    }
    // `python3 -m markitdown x` and `python3 -c "import pypdf; …"` use Python modules.
    const module = /\bpython[0-9.]*\s+-m\s+([A-Za-z_][\w.]*)/.exec(code);
    if (module) uses.push({ kind: 'python', name: module[1]!.split('.')[0]!, line, optional: false });
    if (/\bpython[0-9.]*\s+(?:-\w+\s+)*-c\s/.test(code)) {
      for (const match of code.matchAll(inlinePython)) {
        const names = match[1] !== undefined ? match[1].split(',') : [match[2] ?? ''];
        for (const name of names) uses.push({ kind: 'python', name: name.trim().split('.')[0]!, line, optional: false });
      }
    }
  });
  return uses;
}
