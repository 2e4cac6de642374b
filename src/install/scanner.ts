// The install scanner: static and explainable. It reads every staged file (never runs one) and reports what a
// person should see before saying yes: download-and-execute, encoded payloads, hidden characters and text,
// symlinks, devices, submodules, binaries without source, a name that shadows a skill already there, and
// everything `skills validate` says. Each finding names its file and, for text, its line.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Finding } from './findings.ts';
import type { StagedSkills } from './stagedSkills.ts';
import type { Staged } from './staging.ts';
import { downloadFindings } from './downloadRules.ts';
import { hiddenInName, scanText } from './textRules.ts';

const BINARY_MAGIC: ReadonlyArray<readonly [string, number[]]> = [
  ['an ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['a Windows executable', [0x4d, 0x5a]],
  ['a Mach-O executable', [0xcf, 0xfa, 0xed, 0xfe]],
  ['a Mach-O executable', [0xfe, 0xed, 0xfa, 0xcf]],
  ['a Mach-O universal binary', [0xca, 0xfe, 0xba, 0xbe]],
  ['WebAssembly', [0x00, 0x61, 0x73, 0x6d]],
];
const COMPILED_EXTENSIONS = /\.(?:so|dylib|dll|exe|pyc|pyo|class|jar|node|wasm|bin)$/i;

async function head(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The file as text, whatever its size or encoding: UTF-8, UTF-16 by its byte-order mark, else each byte as one
 * character (Latin-1), so the rules still see the ASCII of a shell line inside anything. `how` says which, when
 * not UTF-8: a file is never left unread, and one not read as UTF-8 is said so on the card.
 */
function decode(bytes: Buffer): { text: string; how?: string } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes), how: 'UTF-16 (little-endian)' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes), how: 'UTF-16 (big-endian)' };
  try {
    if (!bytes.includes(0)) return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    // Not UTF-8: read byte by byte below.
  }
  return { text: bytes.toString('latin1'), how: bytes.includes(0) ? 'binary data, searched byte by byte' : 'not UTF-8, read as Latin-1' };
}

export interface ScanContext {
  /** Ids of skills the bot has now (another root, another install), which a staged skill must not shadow. */
  existing: ReadonlyMap<string, string>;
}

export async function scanStaged(staged: Staged, found: StagedSkills, context: ScanContext): Promise<Finding[]> {
  const findings: Finding[] = [];
  // Only what would be installed: files outside every skill folder (a repository's CI, its issue templates) are not.
  const folders = found.skills.map((skill) => skill.folder);
  const installed = (path: string) => folders.some((folder) => folder === '' || path.startsWith(`${folder}/`));
  for (const oddity of staged.oddities.filter((entry) => installed(entry.path))) {
    const what = {
      symlink: `a symbolic link to ${JSON.stringify(oddity.detail)}; not installed`,
      submodule: `a git submodule (commit ${oddity.detail.slice(0, 12)}); its content is not fetched`,
      device: `a device or special file (${oddity.detail}); not installed`,
      other: `${oddity.detail}; not installed`,
    }[oddity.kind];
    findings.push({ code: oddity.kind === 'symlink' ? 'SYMLINK' : oddity.kind === 'submodule' ? 'SUBMODULE' : 'SPECIAL_FILE', severity: 'danger', file: oddity.path, message: what });
  }
  for (const file of staged.files.filter((entry) => installed(entry.path))) {
    const hidden = hiddenInName(file.path);
    if (hidden !== undefined) findings.push({ code: 'HIDDEN_CHARACTERS', severity: 'danger', file: file.path, message: `its name holds ${hidden}` });
    const full = join(staged.dir, file.path);
    const start = await head(full, Math.min(file.size, 8192));
    const magic = BINARY_MAGIC.find(([, bytes]) => bytes.every((byte, i) => start[i] === byte));
    if (magic !== undefined || COMPILED_EXTENSIONS.test(file.path)) {
      findings.push({ code: 'BINARY', severity: 'danger', file: file.path, message: `${magic?.[0] ?? 'compiled code'} with no source to read` });
      continue;
    }
    const { text, how } = decode(file.size <= start.byteLength ? start : await head(full, file.size));
    if (how !== undefined) {
      findings.push({ code: 'NOT_UTF8', severity: file.executable ? 'danger' : 'note', file: file.path, message: `${file.executable ? 'an executable file that is ' : ''}${how}; the rules ran on it as such` });
    }
    // Markdown is what the model reads as instructions: there, what renders as nothing is a finding.
    // Binary data holds stray bytes that would read as hidden characters: only the download rules run on it.
    if (how?.startsWith('binary') === true) findings.push(...downloadFindings(file.path, text));
    else findings.push(...scanText(file.path, text, how === undefined && /\.(?:md|markdown|mdx)$/i.test(file.path)));
  }
  for (const problem of found.problems) findings.push({ code: 'ROOT_PROBLEM', severity: 'note', file: '.claude-plugin', message: problem });
  for (const skill of found.skills) {
    const where = skill.folder === '' ? 'SKILL.md' : `${skill.folder}/SKILL.md`;
    for (const error of skill.errors) findings.push({ code: error.code, severity: 'danger', file: where, message: `invalid: ${error.message}` });
    for (const warning of skill.warnings) findings.push({ code: warning.code, severity: 'note', file: where, message: warning.message });
    const other = context.existing.get(skill.id);
    if (other !== undefined) findings.push({ code: 'SHADOWS', severity: 'danger', file: where, message: `the name "${skill.id}" is already taken by ${other}` });
  }
  if (found.skills.length === 0) findings.push({ code: 'NO_SKILLS', severity: 'danger', file: '.', message: 'no folder here holds a SKILL.md' });
  return findings;
}
