// Reading one skill folder: every file under it, its content hash, and the bytes later steps need.
// Bounded so that nothing in a folder can hang or exhaust the indexer: FIFOs are never read (opened
// non-blocking, then checked), huge files are hashed by size and mtime, symlinks are never followed out of
// the folder, and file count and depth are capped.
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { realpath, readlink, stat } from 'node:fs/promises';
import { readBounded, readEntries, type BoundedRead } from './fileReads.ts';
import type { Limiter } from './limiter.ts';
import type { SkillProblem } from './types.ts';

export const SCAN_LIMITS = {
  /** Files (of any kind) in one skill folder. More makes the skill invalid: its hash would be partial. */
  maxFiles: 2000,
  /** Folder depth inside a skill folder. */
  maxDepth: 8,
  /** Files above this are hashed by size and mtime instead of content. */
  hashContentMaxBytes: 8 * 1024 * 1024,
  /** Content bytes read per skill; past it, bigger files are hashed by size and mtime. */
  hashTotalMaxBytes: 64 * 1024 * 1024,
  /** Bytes kept of each file under references/ and assets/ (for the text the body names). */
  keepBytes: 32 * 1024,
  /** A bigger SKILL.md is refused. */
  skillMdMaxBytes: 1024 * 1024,
};

export interface ScannedFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** SKILL.md's bytes, and the first bytes of files under references/ and assets/. */
  bytes?: Buffer;
}

export interface FolderScan {
  /** Regular files, including symlinks that resolve to a file inside the folder. */
  files: Map<string, ScannedFile>;
  /** Folders inside the skill folder, relative (`''` is the folder itself); watchers use them. */
  dirs: string[];
  /** Symlinks that resolve outside the folder (never read). */
  outsideLinks: Set<string>;
  hash: string;
  errors: SkillProblem[];
  warnings: SkillProblem[];
}

const IGNORED_ERRORS = new Set(['ENOENT', 'ELOOP', 'ENOTDIR']);

function errorCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'EIO';
}

function keepsBytes(path: string): boolean {
  return path.startsWith('references/') || path.startsWith('assets/');
}

/** Scan `folder` (whose real path is `realDir`). `entries` are its own entries when the caller has them. */
export async function scanSkillFolder(
  folder: string,
  realDir: string,
  limiter: Limiter,
  entries?: Dirent[],
): Promise<FolderScan> {
  const files = new Map<string, ScannedFile>();
  const dirs: string[] = [''];
  const outsideLinks = new Set<string>();
  const errors: SkillProblem[] = [];
  const warnings: SkillProblem[] = [];
  const hashLines: string[] = [];
  let count = 0;
  let hashedBytes = 0;
  const realPrefix = realDir.endsWith('/') ? realDir : `${realDir}/`;

  const addFile = async (rel: string, path: string, follow: boolean): Promise<void> => {
    // Past the per-skill total, files are read only if they fit the first small read.
    const contentMax = hashedBytes > SCAN_LIMITS.hashTotalMaxBytes ? 0 : SCAN_LIMITS.hashContentMaxBytes;
    const max = rel === 'SKILL.md' ? SCAN_LIMITS.skillMdMaxBytes : contentMax;
    let result: BoundedRead;
    try {
      result = await limiter.run(() => readBounded(path, follow, max));
    } catch (err) {
      const code = errorCode(err);
      if (IGNORED_ERRORS.has(code)) return; // vanished or swapped mid-scan: the watcher reindexes
      errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the file (${code})` });
      return;
    }
    if (result.special) {
      hashLines.push(`s\0${rel}`);
      return;
    }
    let digest = `m${result.mtimeMs}`;
    if (result.bytes) {
      hashedBytes += result.bytes.length;
      digest = `c${createHash('sha256').update(result.bytes).digest('hex')}`;
    }
    hashLines.push(`f\0${rel}\0${result.size}\0${digest}`);
    const file: ScannedFile = { path: rel, size: result.size };
    if (result.bytes && rel === 'SKILL.md') file.bytes = result.bytes;
    else if (result.bytes && keepsBytes(rel)) {
      file.bytes =
        result.bytes.length > SCAN_LIMITS.keepBytes * 2
          ? Buffer.from(result.bytes.subarray(0, SCAN_LIMITS.keepBytes + 4))
          : result.bytes;
    }
    files.set(rel, file);
  };

  const addLink = async (rel: string, path: string): Promise<void> => {
    const target = await readlink(path).catch(() => '');
    hashLines.push(`l\0${rel}\0${target}`);
    let real: string;
    try {
      real = await limiter.run(() => realpath(path));
    } catch {
      warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlink does not resolve; ignored` });
      return;
    }
    if (!real.startsWith(realPrefix)) {
      outsideLinks.add(rel);
      warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlink points outside the skill folder; ignored` });
      return;
    }
    const st = await stat(real).catch(() => undefined);
    if (st?.isFile()) return addFile(rel, real, true);
    warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlinked folders are not followed` });
  };

  const visit = async (rel: string, path: string, depth: number, known?: Dirent[]): Promise<void> => {
    let list: Dirent[];
    try {
      list = known ?? (await limiter.run(() => readEntries(path)));
    } catch (err) {
      const code = errorCode(err);
      if (!IGNORED_ERRORS.has(code)) {
        errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the folder (${code})` });
      }
      return;
    }
    const tasks: Promise<void>[] = [];
    for (const entry of list) {
      count += 1;
      if (count > SCAN_LIMITS.maxFiles) break;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const childPath = `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === '.git') continue;
        if (depth + 1 > SCAN_LIMITS.maxDepth) {
          errors.push({
            code: 'SKILL_TOO_DEEP',
            message: `${folder}/${childRel}: folders nest deeper than ${SCAN_LIMITS.maxDepth} levels`,
          });
          continue;
        }
        dirs.push(childRel);
        tasks.push(visit(childRel, childPath, depth + 1));
      } else if (entry.isFile()) tasks.push(addFile(childRel, childPath, false));
      else if (entry.isSymbolicLink()) tasks.push(addLink(childRel, childPath));
      else hashLines.push(`s\0${childRel}`);
    }
    await Promise.all(tasks);
  };

  await visit('', folder, 0, entries);
  if (count > SCAN_LIMITS.maxFiles) {
    errors.push({
      code: 'SKILL_TOO_MANY_FILES',
      message: `${folder}: more than ${SCAN_LIMITS.maxFiles} files; a skill's hash must cover all of them`,
    });
  }
  hashLines.sort();
  const hash = createHash('sha256').update(hashLines.join('\n')).digest('hex');
  dirs.sort();
  return { files, dirs, outsideLinks, hash, errors, warnings };
}
