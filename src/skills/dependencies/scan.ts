// The static scan of one skill folder: every code file of the skill, wherever it is (scripts/, a `core/` package,
// templates), by extension or shebang; and, apart, the fenced code blocks of SKILL.md and the markdown files it links
// to (and they link to): what documents mention is an example or an alternative, not a need of the skill's code.
// Bounded, so a hostile folder costs little: at most MAX_FILES entries walked, files over MAX_BYTES or holding NUL
// bytes are skipped.
import { builtinModules } from 'node:module';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { languageOfFile, languageOfInfo, shebangProgram, usesIn, type RawUse } from './extract.ts';
import { PYTHON_STDLIB } from './pythonStdlib.ts';
import type { Dependency } from './types.ts';

const MAX_FILES = 2_000;
const MAX_BYTES = 1024 * 1024;
const MAX_MARKDOWN = 50;
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '__pycache__']);

interface Walked {
  /** Paths relative to the skill folder, `/`-separated. */
  files: string[];
  /** Names a Python import of the skill's own code resolves to: `x.py`, `x/` (and `x.*.so`) anywhere in the folder. */
  localModules: Set<string>;
}

/** What the skill's code uses that neither the skill bundles nor the language ships. Never throws. */
export async function scanSkillDependencies(skillDir: string): Promise<Dependency[]> {
  const walked = await walk(skillDir);
  const found: { use: RawUse; file: string; mentioned?: boolean }[] = [];
  for (const file of walked.files) {
    const text = await readText(path.join(skillDir, file));
    if (text === undefined) continue;
    const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n')).replace(/\r$/, '');
    const program = shebangProgram(firstLine);
    if (program !== undefined) found.push({ file, use: { kind: 'program', name: program, line: 1, optional: false } });
    const language = languageOfFile(file, firstLine);
    if (language !== undefined) for (const use of usesIn(text, language)) found.push({ file, use });
  }
  for (const { file, text } of await linkedMarkdown(skillDir, walked.files)) {
    for (const block of codeBlocks(text)) {
      for (const use of usesIn(block.text, block.language)) found.push({ file, mentioned: true, use: { ...use, line: use.line + block.line } });
    }
  }
  return group(found.filter(({ use }) => !provided(use, walked.localModules)));
}

function provided(use: RawUse, localModules: ReadonlySet<string>): boolean {
  if (use.kind === 'python') return PYTHON_STDLIB.has(use.name) || localModules.has(use.name);
  if (use.kind === 'node') return builtinModules.includes(use.name);
  return false;
}

/** One entry per name: code's uses first (a need), then the documents' (a need only if code has none). */
function group(found: { use: RawUse; file: string; mentioned?: boolean }[]): Dependency[] {
  const byKey = new Map<string, Dependency>();
  const ordered = [...found.filter((entry) => entry.mentioned !== true), ...found.filter((entry) => entry.mentioned === true)];
  for (const { use, file, mentioned } of ordered) {
    const key = `${use.kind}\0${use.name}`;
    const entry = byKey.get(key);
    if (entry === undefined) {
      const submodules = use.submodule === undefined ? {} : { submodules: [use.submodule] };
      byKey.set(key, { kind: use.kind, name: use.name, sites: [{ file, line: use.line }], optional: use.optional, mentionedOnly: mentioned === true, ...submodules });
    } else {
      if (use.submodule !== undefined && !(entry.submodules ?? []).includes(use.submodule)) entry.submodules = [...(entry.submodules ?? []), use.submodule];
      if (!entry.sites.some((site) => site.file === file && site.line === use.line)) entry.sites.push({ file, line: use.line });
      // A guarded import stays optional only while every use in code is guarded; a document's mention changes neither.
      if (mentioned !== true) entry.optional &&= use.optional;
    }
  }
  return [...byKey.values()];
}

async function walk(skillDir: string): Promise<Walked> {
  const walked: Walked = { files: [], localModules: new Set() };
  const queue = [''];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_FILES) {
    const rel = queue.shift()!;
    let entries;
    try {
      entries = await readdir(path.join(skillDir, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++seen > MAX_FILES) break;
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name)) continue;
        walked.localModules.add(entry.name);
        queue.push(child);
      } else if (entry.isFile()) {
        walked.files.push(child);
        const module = /^([A-Za-z_]\w*)(?:\.py|\.pyc|(?:\.[\w-]+)?\.so)$/.exec(entry.name);
        if (module) walked.localModules.add(module[1]!);
      }
    }
  }
  return walked;
}

/** SKILL.md and every `.md` it names (as a link or a path), then what those name, within the folder. */
async function linkedMarkdown(skillDir: string, files: readonly string[]): Promise<{ file: string; text: string }[]> {
  // Skills name their documents loosely (`see FORMS.md` for forms.md): match names without case.
  const byLowerName = new Map(files.map((file) => [file.toLowerCase(), file]));
  const found: { file: string; text: string }[] = [];
  const queue = ['SKILL.md'];
  const visited = new Set(queue);
  while (queue.length > 0 && found.length < MAX_MARKDOWN) {
    const file = queue.shift()!;
    const text = await readText(path.join(skillDir, file));
    if (text === undefined) continue;
    found.push({ file, text });
    for (const match of text.matchAll(/[\w./-]*[\w-]\.md\b/g)) {
      const named = match[0].replace(/^\.\//, '');
      for (const candidate of [path.posix.normalize(path.posix.join(path.posix.dirname(file), named)), path.posix.normalize(named)]) {
        const actual = byLowerName.get(candidate.toLowerCase());
        if (actual !== undefined && !visited.has(actual)) {
          visited.add(actual);
          queue.push(actual);
        }
      }
    }
  }
  return found;
}

/** Fenced blocks (``` or ~~~) with a language the scan reads; `line` is the line before the block's first. */
export function codeBlocks(markdown: string): { language: NonNullable<ReturnType<typeof languageOfInfo>>; text: string; line: number }[] {
  const blocks: { language: NonNullable<ReturnType<typeof languageOfInfo>>; text: string; line: number }[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^\s{0,3}(`{3,}|~{3,})(.*)$/.exec(lines[index]!.replace(/\r$/, ''));
    if (!open) continue;
    const fence = open[1]!;
    const start = index;
    let end = index + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end += 1;
    const language = languageOfInfo(open[2] ?? '');
    if (language !== undefined) blocks.push({ language, text: lines.slice(start + 1, end).join('\n'), line: start + 1 });
    index = end;
  }
  return blocks;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    const info = await lstat(file);
    if (!info.isFile() || info.size > MAX_BYTES) return undefined;
    const bytes = await readFile(file);
    if (bytes.includes(0)) return undefined;
    return bytes.toString('utf8');
  } catch {
    return undefined;
  }
}
