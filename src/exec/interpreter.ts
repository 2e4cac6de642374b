// Chooses how a script is run from the script itself (shebang, extension, exec bit), never from the model's words.
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

export type Interpreter =
  | { ok: true; /** program to spawn */ command: string; /** its argv, the script path included */ args: string[] }
  | { ok: false; reason: string };

const byExtension: Record<string, 'bash' | 'python3' | 'node'> = {
  '.sh': 'bash',
  '.py': 'python3',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
};

const plainName = /^[A-Za-z0-9._+-]+$/;
const absolutePath = /^\/[A-Za-z0-9._+/-]*$/;
// Shebang arguments are flags and simple values: no quotes, `$`, `;`, `|`, backticks, globs or redirections.
const plainArg = /^[A-Za-z0-9._+/=:,@%-]+$/;

// Flags that would make the interpreter run code written in the shebang itself rather than the file.
const inlineCodeFlag: { names: RegExp; flag: RegExp }[] = [
  { names: /^(sh|bash|dash|zsh|ksh|mksh|ash|fish)$/, flag: /^-[A-Za-z]*c|^--command/ },
  { names: /^(node|nodejs|bun|deno)$/, flag: /^-[A-Za-z]*[ep]|^--(eval|print)/ },
  { names: /^python[0-9.]*$/, flag: /^-[A-Za-z]*c/ },
  { names: /^(perl|ruby)[0-9.]*$/, flag: /^-[A-Za-z]*[eE]/ },
];

/**
 * How to run `scriptPath`: by its shebang (`#!/bin/bash`, `#!/usr/bin/env X`, `#!/usr/bin/env -S X ARGS`), else by
 * extension (.sh bash, .py python3, .js/.mjs/.cjs this node), else directly when executable, else refused.
 */
export function interpreterFor(
  scriptPath: string,
  firstLine: string,
  options: { executable: boolean; nodePath?: string } = { executable: false },
): Interpreter {
  if (firstLine.startsWith('#!')) return fromShebang(scriptPath, firstLine.slice(2));
  const kind = byExtension[path.extname(scriptPath).toLowerCase()];
  if (kind === 'node') return { ok: true, command: options.nodePath ?? process.execPath, args: [scriptPath] };
  if (kind !== undefined) return { ok: true, command: kind, args: [scriptPath] };
  if (options.executable) return { ok: true, command: scriptPath, args: [] };
  return {
    ok: false,
    reason: `no interpreter for "${path.basename(scriptPath)}": give it a shebang line or a .sh, .py or .js extension`,
  };
}

function fromShebang(scriptPath: string, shebang: string): Interpreter {
  const words = shebang.replace(/\r$/, '').trim().split(/[ \t]+/).filter((word) => word !== '');
  let [program, ...args] = words;
  if (program === undefined) return { ok: false, reason: 'the shebang line names no interpreter' };
  if (!absolutePath.test(program)) {
    return { ok: false, reason: `the shebang interpreter "${program}" is not a plain absolute path` };
  }
  if (path.basename(program) === 'env') {
    if (args[0] === '-S') args = args.slice(1);
    const [named, ...rest] = args;
    if (named === undefined) return { ok: false, reason: 'the shebang runs env without a program' };
    if (named.startsWith('-') || !plainName.test(named)) {
      return { ok: false, reason: `the shebang program "${named}" is not a plain program name` };
    }
    program = named;
    args = rest;
  }
  const unsafe = args.find((arg) => !plainArg.test(arg));
  if (unsafe !== undefined) return { ok: false, reason: `the shebang argument "${unsafe}" is not allowed` };
  const name = path.basename(program);
  const inline = inlineCodeFlag.find((entry) => entry.names.test(name));
  const codeFlag = inline === undefined ? undefined : args.find((arg) => inline.flag.test(arg));
  if (codeFlag !== undefined) {
    return { ok: false, reason: `the shebang passes "${codeFlag}" to ${name}, which would run code from the shebang` };
  }
  return { ok: true, command: program, args: [...args, scriptPath] };
}

/** The first line of a file (up to 1 KiB), enough to read a shebang. Synchronous: one tiny read on every run. */
export async function readFirstLine(file: string): Promise<string> {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1024);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, bytesRead);
    const newline = head.indexOf(0x0a);
    return head.subarray(0, newline === -1 ? head.length : newline).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
