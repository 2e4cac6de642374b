// @ts-check
// Scanning one skill folder for the scan worker (scanWorker.mjs): walk it, then read and hash its files. Plain
// JavaScript for the same reason as the worker (type-checked through JSDoc).
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import { decodePrefix, decodeText, errorCode, hashFile } from './scanFiles.mjs';

/** @typedef {import('node:fs').Dirent} Dirent */
/** @typedef {import('./types.ts').SkillProblem} SkillProblem */
/** @typedef {import('./scanProtocol.ts').FolderPlace} FolderPlace */
/** @typedef {import('./scanProtocol.ts').ScannedFile} ScannedFile */
/** @typedef {import('./scanProtocol.ts').ScannedFolder} ScannedFolder */
/** @typedef {import('./scanProtocol.ts').ScanWorkerData['limits']} ScanLimits */

/** Errors of an entry that vanished or changed kind mid-scan: the watcher reindexes, so they are no problem. */
const IGNORED_ERRORS = new Set(['ENOENT', 'ELOOP', 'ENOTDIR']);

/**
 * What a walk of one folder gathers: the hash's lines, the folders, the files to read, the problems.
 * @typedef {{
 *   folder: string, realDir: string, limits: ScanLimits,
 *   files: ScannedFile[], dirs: string[], outsideLinks: string[], errors: SkillProblem[], warnings: SkillProblem[],
 *   hashLines: string[], toRead: Array<{ rel: string, path: string, follow: boolean, link: boolean }>
 * }} FolderScan
 */

/**
 * Does `target` (a symlink's text, relative to the folder `rel` sits in) stay inside the skill folder?
 * @param {string} rel
 * @param {string} target
 * @returns {boolean}
 */
function staysInside(rel, target) {
  if (target === '' || isAbsolute(target)) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(rel), target));
  return resolved !== '..' && !resolved.startsWith('../');
}

/**
 * @param {number} bytes
 * @returns {string}
 */
function mib(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * A symlink in the folder: hashed by its text; one leading outside makes the skill invalid; a link to a file
 * inside is read as that file.
 * @param {FolderScan} scan
 * @param {string} rel
 * @param {string} path
 */
function addLink(scan, rel, path) {
  const { folder, realDir } = scan;
  const outside = () => {
    scan.outsideLinks.push(rel);
    scan.errors.push({ code: 'SYMLINK_OUTSIDE', message: `${folder}/${rel}: symlink leads outside the skill folder (to ${JSON.stringify(target)}); the sandbox would expose what no approval covers: copy the file into the folder instead` });
  };
  let target = '';
  try {
    target = readlinkSync(path);
  } catch {
    // Vanished: its real path below fails too.
  }
  scan.hashLines.push(`l\0${rel}\0${target}`);
  let real;
  try {
    real = realpathSync(path);
  } catch {
    if (!staysInside(rel, target)) outside();
    else scan.warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlink does not resolve; ignored` });
    return;
  }
  const realPrefix = realDir.endsWith('/') ? realDir : `${realDir}/`;
  if (!staysInside(rel, target) || (real !== realDir && !real.startsWith(realPrefix))) return outside();
  let isFile = false;
  try {
    isFile = statSync(real).isFile();
  } catch {
    // Treated as not a file.
  }
  // Its target is inside the folder and hashed on its own; the link is hashed by its text above.
  if (isFile) scan.toRead.push({ rel, path: real, follow: true, link: true });
  else scan.warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlinked folders are not followed` });
}

/**
 * Every entry under the folder (hidden folders and .git included), within the depth and count bounds.
 * @param {FolderScan} scan
 * @param {Dirent[]} entries the folder's own entries, already listed
 */
function walk(scan, entries) {
  const { folder, limits } = scan;
  let count = 0;
  /** @type {Array<{ rel: string, path: string, depth: number, known?: Dirent[] }>} */
  const stack = [{ rel: '', path: folder, depth: 0, known: entries }];
  walking: for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { rel, path, depth, known } = next;
    let list;
    try {
      list = known ?? readdirSync(path, { withFileTypes: true });
    } catch (err) {
      if (!IGNORED_ERRORS.has(errorCode(err))) {
        scan.errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the folder (${errorCode(err)})` });
      }
      continue;
    }
    for (const entry of list) {
      count += 1;
      if (count > limits.maxFiles) break walking;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const childPath = `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth + 1 > limits.maxDepth) {
          scan.errors.push({ code: 'SKILL_TOO_DEEP', message: `${folder}/${childRel}: folders nest deeper than ${limits.maxDepth} levels; a skill's hash must cover all of them` });
          continue;
        }
        scan.dirs.push(childRel);
        scan.hashLines.push(`d\0${childRel}`);
        stack.push({ rel: childRel, path: childPath, depth: depth + 1 });
      } else if (entry.isFile()) scan.toRead.push({ rel: childRel, path: childPath, follow: false, link: false });
      else if (entry.isSymbolicLink()) addLink(scan, childRel, childPath);
      else scan.hashLines.push(`s\0${childRel}`);
    }
  }
  if (count > limits.maxFiles) {
    scan.errors.push({ code: 'SKILL_TOO_MANY_FILES', message: `${folder}: more than ${limits.maxFiles} files and folders; a skill's hash must cover all of them` });
  }
}

/**
 * The text a file keeps: SKILL.md whole, other markdown whole (the scripts it names can be found; they may run
 * too: see indexSkill.ts), and the first bytes of a reference or asset SKILL.md mentions.
 * @param {ScannedFile} file
 * @param {string} rel
 * @param {{ bytes?: Buffer, prefix: Buffer }} result
 * @param {string | undefined} skillText
 * @param {number} keepBytes
 */
function keepText(file, rel, result, skillText, keepBytes) {
  if (rel === 'SKILL.md') {
    if (!result.bytes) return;
    const text = decodeText(result.bytes);
    if (text === undefined) file.binary = true;
    else file.text = text;
    return;
  }
  if (rel.endsWith('.md') && result.bytes) {
    const text = decodeText(result.bytes);
    if (text !== undefined) file.markdown = text;
  }
  if ((rel.startsWith('references/') || rel.startsWith('assets/')) && skillText?.includes(rel)) {
    const prefix = decodePrefix(result.prefix, keepBytes);
    if (prefix === undefined) file.binary = true;
    else {
      file.text = prefix.text;
      if (prefix.truncated) file.truncated = true;
    }
  }
}

/**
 * Read and hash every file the walk found, SKILL.md first (the references it mentions are the ones whose text
 * is kept), within the folder's byte budget.
 * @param {FolderScan} scan
 */
function readFiles(scan) {
  const { folder, limits } = scan;
  scan.toRead.sort((a, b) => (a.rel === 'SKILL.md' ? -1 : b.rel === 'SKILL.md' ? 1 : 0));
  /** @type {string | undefined} */
  let skillText;
  let total = 0;
  let over = false;
  for (const { rel, path, follow, link } of scan.toRead) {
    // A link's target is counted once, as itself.
    const budget = over ? 0 : link ? Infinity : limits.maxTotalBytes - total;
    let result;
    try {
      result = hashFile(path, follow, budget, rel === 'SKILL.md' ? limits.skillMdMaxBytes : rel.endsWith('.md') ? limits.markdownMaxBytes : 0);
    } catch (err) {
      if (IGNORED_ERRORS.has(errorCode(err))) continue; // vanished or swapped mid-scan: the watcher reindexes
      scan.errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the file (${errorCode(err)})` });
      continue;
    }
    if ('special' in result) {
      scan.hashLines.push(`s\0${rel}`);
      continue;
    }
    /** @type {ScannedFile} */
    const file = { path: rel, size: result.size };
    if (!link) total += result.size;
    if ('over' in result) {
      over = true;
      // Invalid anyway; size and mtime still let the watcher see it change.
      scan.hashLines.push(`f\0${rel}\0${result.size}\0m${result.mtimeMs ?? ''}`);
      scan.files.push(file);
      continue;
    }
    keepText(file, rel, result, skillText, limits.keepBytes);
    if (rel === 'SKILL.md') skillText = file.text;
    if (!link) scan.hashLines.push(`f\0${rel}\0${result.size}\0${result.digest}`);
    scan.files.push(file);
  }
  if (over) {
    scan.errors.push({ code: 'SKILL_TOO_LARGE', message: `${folder}: its files hold ${mib(total)} (${total} bytes), over the ${mib(limits.maxTotalBytes)} a skill may hold; every byte the sandbox exposes is hashed for its approval` });
  }
}

/**
 * Scan one skill folder: every entry the sandbox will expose, each file hashed by its whole content, and the
 * text SKILL.md and its references need. The hash covers paths, folders, file contents and symlink texts, so any
 * change to what a script can see changes it. A symlink leading out of the folder (absolute, or resolving
 * outside) makes the skill invalid: inside the sandbox it would show something no approval covered. So does a
 * folder over the size or file-count bound.
 * @param {FolderPlace} place
 * @param {string} realDir
 * @param {Dirent[]} entries the folder's own entries, already listed
 * @param {ScanLimits} limits
 * @returns {ScannedFolder}
 */
export function scanFolder(place, realDir, entries, limits) {
  /** @type {FolderScan} */
  const scan = { folder: place.folder, realDir, limits, files: [], dirs: [''], outsideLinks: [], errors: [], warnings: [], hashLines: [], toRead: [] };
  walk(scan, entries);
  readFiles(scan);
  scan.hashLines.sort();
  scan.dirs.sort();
  const hash = createHash('sha256').update(scan.hashLines.join('\n')).digest('hex');
  const { files, dirs, outsideLinks, errors, warnings } = scan;
  return { ...place, realDir, files, dirs, outsideLinks, hash, errors, warnings };
}
