// @ts-check
// The skill folder scanner, run in a worker thread (see folderScanner.ts for the protocol and why).
// Plain JavaScript on purpose: a worker thread cannot load TypeScript through the loaders the bot, tests and
// benches use. Type-checked all the same (`// @ts-check`, JSDoc): its messages against scanProtocol.ts, the
// types folderScanner.ts reads. It finds skill folders, reads every file of each (bounded), hashes them and decodes the text
// the main thread needs; parsing and validation stay on the main thread. It also hashes any folder on request
// (`hash`), with exactly the same algorithm: the executor checks what it is about to run against the hash a
// person approved.
//
// Everything here is synchronous: this thread does nothing else, and one blocking call per file costs a
// fraction of an asynchronous round trip through the libuv pool, the main cost of a cold index otherwise.
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { decodePrefix, decodeText, errorCode, hashFile, messageOf } from './scanFiles.mjs';

/** @typedef {import('node:fs').Dirent} Dirent */
/** @typedef {import('./types.ts').SkillProblem} SkillProblem */
/** @typedef {import('./scanProtocol.ts').FolderHash} FolderHash */
/** @typedef {import('./scanProtocol.ts').FolderPlace} FolderPlace */
/** @typedef {import('./scanProtocol.ts').IndexRequest} IndexRequest */
/** @typedef {import('./scanProtocol.ts').Reply} Reply */
/** @typedef {import('./scanProtocol.ts').ScannedFile} ScannedFile */
/** @typedef {import('./scanProtocol.ts').ScannedFolder} ScannedFolder */
/** @typedef {import('./scanProtocol.ts').ScanWorkerData} ScanWorkerData */
/** @typedef {import('./scanProtocol.ts').TreeScan} TreeScan */
/** @typedef {import('./scanProtocol.ts').WorkerRequest} WorkerRequest */

if (parentPort === null) throw new Error('scanWorker.mjs runs in a worker thread: start it through folderScanner.ts');
const port = parentPort;
const LIMITS = /** @type {ScanWorkerData} */ (workerData).limits;
const SKIPPED = new Set(['.git', 'node_modules']);
const IGNORED_ERRORS = new Set(['ENOENT', 'ELOOP', 'ENOTDIR']);
const BATCH = 100;

/**
 * Every message to the main thread goes through here, so each is checked against the protocol.
 * @param {Reply} reply
 */
function post(reply) {
  port.postMessage(reply);
}

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
 * Scan one skill folder: every entry the sandbox will expose (hidden folders and .git included), each
 * file hashed by its whole content, and the text SKILL.md and its references need. The hash covers paths,
 * folders, file contents and symlink texts, so any change to what a script can see changes it. A symlink
 * leading out of the folder (absolute, or resolving outside) makes the skill invalid: inside the sandbox
 * it would show something no approval covered. So does a folder over the size or file-count bound.
 * @param {FolderPlace} place
 * @param {string} realDir
 * @param {Dirent[]} entries the folder's own entries, already listed
 * @returns {ScannedFolder}
 */
function scanFolder(place, realDir, entries) {
  const { folder } = place;
  /** @type {ScannedFile[]} */
  const files = [];
  const dirs = [''];
  /** @type {string[]} */
  const outsideLinks = [];
  /** @type {SkillProblem[]} */
  const errors = [];
  /** @type {SkillProblem[]} */
  const warnings = [];
  /** @type {string[]} */
  const hashLines = [];
  /** @type {Array<{ rel: string, path: string, follow: boolean, link: boolean }>} */
  const toRead = [];
  const realPrefix = realDir.endsWith('/') ? realDir : `${realDir}/`;
  let count = 0;

  /**
   * @param {string} rel
   * @param {string} path
   */
  const addLink = (rel, path) => {
    let target = '';
    try {
      target = readlinkSync(path);
    } catch {
      // Vanished: its real path below fails too.
    }
    hashLines.push(`l\0${rel}\0${target}`);
    let real;
    try {
      real = realpathSync(path);
    } catch {
      if (!staysInside(rel, target)) {
        outsideLinks.push(rel);
        errors.push({ code: 'SYMLINK_OUTSIDE', message: `${folder}/${rel}: symlink leads outside the skill folder (to ${JSON.stringify(target)}); the sandbox would expose what no approval covers: copy the file into the folder instead` });
      } else warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlink does not resolve; ignored` });
      return;
    }
    if (!staysInside(rel, target) || (real !== realDir && !real.startsWith(realPrefix))) {
      outsideLinks.push(rel);
      errors.push({ code: 'SYMLINK_OUTSIDE', message: `${folder}/${rel}: symlink leads outside the skill folder (to ${JSON.stringify(target)}); the sandbox would expose what no approval covers: copy the file into the folder instead` });
      return;
    }
    let isFile = false;
    try {
      isFile = statSync(real).isFile();
    } catch {
      // Treated as not a file.
    }
    // Its target is inside the folder and hashed on its own; the link is hashed by its text above.
    if (isFile) toRead.push({ rel, path: real, follow: true, link: true });
    else warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlinked folders are not followed` });
  };

  /** @type {Array<{ rel: string, path: string, depth: number, known?: Dirent[] }>} */
  const stack = [{ rel: '', path: folder, depth: 0, known: entries }];
  walk: for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { rel, path, depth, known } = next;
    let list;
    try {
      list = known ?? readdirSync(path, { withFileTypes: true });
    } catch (err) {
      if (!IGNORED_ERRORS.has(errorCode(err))) {
        errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the folder (${errorCode(err)})` });
      }
      continue;
    }
    for (const entry of list) {
      count += 1;
      if (count > LIMITS.maxFiles) break walk;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const childPath = `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth + 1 > LIMITS.maxDepth) {
          errors.push({ code: 'SKILL_TOO_DEEP', message: `${folder}/${childRel}: folders nest deeper than ${LIMITS.maxDepth} levels; a skill's hash must cover all of them` });
          continue;
        }
        dirs.push(childRel);
        hashLines.push(`d\0${childRel}`);
        stack.push({ rel: childRel, path: childPath, depth: depth + 1 });
      } else if (entry.isFile()) toRead.push({ rel: childRel, path: childPath, follow: false, link: false });
      else if (entry.isSymbolicLink()) addLink(childRel, childPath);
      else hashLines.push(`s\0${childRel}`);
    }
  }
  if (count > LIMITS.maxFiles) {
    errors.push({ code: 'SKILL_TOO_MANY_FILES', message: `${folder}: more than ${LIMITS.maxFiles} files and folders; a skill's hash must cover all of them` });
  }

  // SKILL.md first: the references it mentions are the ones whose text is kept.
  toRead.sort((a, b) => (a.rel === 'SKILL.md' ? -1 : b.rel === 'SKILL.md' ? 1 : 0));
  /** @type {string | undefined} */
  let skillText;
  let total = 0;
  let over = false;
  for (const { rel, path, follow, link } of toRead) {
    const isSkillMd = rel === 'SKILL.md';
    // A link's target is counted once, as itself.
    const budget = over ? 0 : link ? Infinity : LIMITS.maxTotalBytes - total;
    let result;
    try {
      result = hashFile(path, follow, budget, isSkillMd ? LIMITS.skillMdMaxBytes : rel.endsWith('.md') ? LIMITS.markdownMaxBytes : 0);
    } catch (err) {
      if (IGNORED_ERRORS.has(errorCode(err))) continue; // vanished or swapped mid-scan: the watcher reindexes
      errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the file (${errorCode(err)})` });
      continue;
    }
    if ('special' in result) {
      hashLines.push(`s\0${rel}`);
      continue;
    }
    /** @type {ScannedFile} */
    const file = { path: rel, size: result.size };
    if (!link) total += result.size;
    if ('over' in result) {
      over = true;
      // Invalid anyway; size and mtime still let the watcher see it change.
      hashLines.push(`f\0${rel}\0${result.size}\0m${result.mtimeMs ?? ''}`);
      files.push(file);
      continue;
    }
    if (isSkillMd) {
      if (result.bytes) {
        skillText = decodeText(result.bytes);
        if (skillText === undefined) file.binary = true;
        else file.text = skillText;
      }
    } else if (rel.endsWith('.md') && result.bytes) {
      // Whole, so the scripts it names can be found (they may run too: see indexSkill.ts).
      const text = decodeText(result.bytes);
      if (text !== undefined) file.markdown = text;
    }
    if (!isSkillMd && (rel.startsWith('references/') || rel.startsWith('assets/')) && skillText?.includes(rel)) {
      const prefix = decodePrefix(result.prefix, LIMITS.keepBytes);
      if (prefix === undefined) file.binary = true;
      else {
        file.text = prefix.text;
        if (prefix.truncated) file.truncated = true;
      }
    }
    if (!link) hashLines.push(`f\0${rel}\0${result.size}\0${result.digest}`);
    files.push(file);
  }
  if (over) {
    errors.push({ code: 'SKILL_TOO_LARGE', message: `${folder}: its files hold ${mib(total)} (${total} bytes), over the ${mib(LIMITS.maxTotalBytes)} a skill may hold; every byte the sandbox exposes is hashed for its approval` });
  }
  hashLines.sort();
  dirs.sort();
  const hash = createHash('sha256').update(hashLines.join('\n')).digest('hex');
  return { ...place, realDir, files, dirs, outsideLinks, hash, errors, warnings };
}

/**
 * Real paths of `root` and of every folder between it and `path`, for loop detection below `path`.
 * @param {string} root
 * @param {string} path
 * @returns {Set<string>}
 */
function realAncestors(root, path) {
  /** @type {Set<string>} */
  const above = new Set();
  const parts = path === root ? [] : path.slice(root.length + 1).split('/').slice(0, -1);
  let current = root;
  for (const part of ['', ...parts]) {
    if (part !== '') current = `${current}/${part}`;
    try {
      above.add(realpathSync(current));
    } catch {
      // A vanished folder has no real path.
    }
  }
  return above;
}

/**
 * @param {Dirent[]} entries
 * @returns {boolean}
 */
function holdsSkillMd(entries) {
  return entries.some((e) => e.name === 'SKILL.md' && (e.isFile() || e.isSymbolicLink()));
}

/**
 * Find skill folders under `start` (a folder `start.depth` levels below the root) and scan each, posting
 * scanned folders in batches. A folder holding SKILL.md is a skill (not searched further); others are
 * searched to a bounded depth; symlinked folders are followed unless they lead back to a folder being
 * searched; .git and node_modules are skipped.
 * @param {number} id the request's, for its batches
 * @param {IndexRequest['root']} root
 * @param {IndexRequest['start']} start
 * @returns {TreeScan}
 */
function indexTree(id, root, start) {
  /** @type {TreeScan['treeDirs']} */
  const treeDirs = [];
  /** @type {ScannedFolder[]} */
  let batch = [];
  let folders = 0;
  let truncated = false;
  let startReal;
  try {
    startReal = realpathSync(start.path);
  } catch (err) {
    return { treeDirs, truncated, unreadable: messageOf(err) };
  }
  const flush = () => {
    if (batch.length === 0) return;
    post({ id, kind: 'batch', folders: batch });
    batch = [];
  };
  /** @type {Array<{ path: string, real: string, depth: number, ancestors: Set<string> }>} */
  const stack = [{ path: start.path, real: startReal, depth: start.depth, ancestors: start.path === root.path ? new Set() : realAncestors(root.path, start.path) }];
  /** @type {string | undefined} */
  let unreadable;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { path, real, depth, ancestors } = next;
    if (ancestors.has(real)) continue;
    folders += 1;
    if (folders > LIMITS.maxFolders) {
      truncated = true;
      break;
    }
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (err) {
      if (path === start.path) unreadable = messageOf(err);
      continue;
    }
    if (holdsSkillMd(entries)) {
      batch.push(scanFolder({ root: root.path, rootIndex: root.index, folder: path }, real, entries));
      if (batch.length >= BATCH) flush();
      continue;
    }
    treeDirs.push({ path, depth });
    if (depth >= LIMITS.maxSkillDepth) continue;
    const inside = new Set(ancestors).add(real);
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const childPath = `${path}/${entry.name}`;
      if (entry.isDirectory()) stack.push({ path: childPath, real: `${real}/${entry.name}`, depth: depth + 1, ancestors: inside });
      else if (entry.isSymbolicLink()) {
        try {
          const childReal = realpathSync(childPath);
          if (statSync(childReal).isDirectory()) stack.push({ path: childPath, real: childReal, depth: depth + 1, ancestors: inside });
        } catch {
          // A dangling or looping symlink is not a skill folder.
        }
      }
    }
  }
  flush();
  return { treeDirs, truncated, unreadable };
}

/**
 * Rescan known skill folders; null for one that is gone or no longer holds SKILL.md.
 * @param {FolderPlace[]} places
 * @returns {Array<ScannedFolder | null>}
 */
function scanPlaces(places) {
  return places.map((place) => {
    try {
      const entries = readdirSync(place.folder, { withFileTypes: true });
      return holdsSkillMd(entries) ? scanFolder(place, realpathSync(place.folder), entries) : null;
    } catch {
      return null;
    }
  });
}

/**
 * The content hash of any folder (a run's copy of a skill), or why it has none (the problems a skill would have).
 * @param {string} dir
 * @returns {FolderHash}
 */
function hashOne(dir) {
  let real;
  let entries;
  try {
    real = realpathSync(dir);
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    return { error: `${dir}: cannot read the folder (${errorCode(err)})` };
  }
  const scanned = scanFolder({ root: dir, rootIndex: 0, folder: dir }, real, entries);
  if (scanned.errors.length > 0) return { error: scanned.errors.map((problem) => problem.message).join('; ') };
  return { hash: scanned.hash };
}

port.on('message', (/** @type {WorkerRequest} */ request) => {
  try {
    if (request.kind === 'hash') {
      post({ id: request.id, kind: 'done', hashed: hashOne(request.dir) });
    } else if (request.kind === 'index') {
      post({ id: request.id, kind: 'done', tree: indexTree(request.id, request.root, request.start) });
    } else if (request.kind === 'scan') {
      post({ id: request.id, kind: 'done', folders: scanPlaces(request.places) });
    } else {
      // Only a main thread out of step with this file gets here: the types say it cannot happen.
      const unknown = /** @type {{ id: number, kind: unknown }} */ (request);
      post({ id: unknown.id, kind: 'error', message: `unknown request ${String(unknown.kind)}` });
    }
  } catch (err) {
    post({ id: request.id, kind: 'error', message: messageOf(err) });
  }
});
