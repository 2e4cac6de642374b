// The skill folder scanner, run in a worker thread (see folderScanner.ts for the protocol and why).
// Plain JavaScript on purpose: a worker thread cannot load TypeScript through the loaders the bot, tests and
// benches use. It finds skill folders, reads every file of each (bounded), hashes them and decodes the text
// the main thread needs; parsing and validation stay on the main thread.
//
// Everything here is synchronous: this thread does nothing else, and one blocking call per file costs a
// fraction of an asynchronous round trip through the libuv pool, the main cost of a cold index otherwise.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {import('./scanLimits.ts').ScanLimits} */
const LIMITS = workerData.limits;
const SKIPPED = new Set(['.git', 'node_modules']);
const IGNORED_ERRORS = new Set(['ENOENT', 'ELOOP', 'ENOTDIR']);
const BATCH = 100;
const FIRST_READ = 64 * 1024;
const scratch = Buffer.allocUnsafe(FIRST_READ);
const decoder = new TextDecoder('utf-8', { fatal: true });

function errorCode(err) {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'EIO';
}

function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}

/** UTF-8 text, or undefined for binary (a NUL byte or invalid UTF-8). */
function decodeText(bytes) {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Text of at most `max` leading bytes, cut before a character's first byte; undefined for binary. */
function decodePrefix(bytes, max) {
  if (bytes.length <= max) {
    const text = decodeText(bytes);
    return text === undefined ? undefined : { text, truncated: false };
  }
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  const text = decodeText(bytes.subarray(0, end));
  return text === undefined ? undefined : { text, truncated: true };
}

/**
 * Read a file of at most `maxBytes`: opened non-blocking (a FIFO never hangs the read) and, unless `follow`,
 * without following a symlink swapped in since the folder was listed. `bytes` may be a view of a reused
 * buffer: use it before the next read.
 */
function readBounded(path, follow, maxBytes) {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  try {
    let first;
    try {
      first = readSync(fd, scratch, 0, FIRST_READ, 0);
    } catch (err) {
      if (errorCode(err) === 'EAGAIN' || errorCode(err) === 'EISDIR') return { special: true };
      throw err;
    }
    if (first < FIRST_READ) return { size: first, bytes: scratch.subarray(0, first) };
    const st = fstatSync(fd);
    if (!st.isFile()) return { special: true };
    if (st.size > maxBytes) return { size: st.size, mtimeMs: st.mtimeMs };
    const all = Buffer.allocUnsafe(Math.max(st.size, first));
    scratch.copy(all, 0, 0, first);
    let offset = first;
    while (offset < all.length) {
      const read = readSync(fd, all, offset, all.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return { size: offset, bytes: all.subarray(0, offset) };
  } finally {
    closeSync(fd);
  }
}

/** Scan one skill folder: every file, its content hash, and the text SKILL.md and its references need. */
function scanFolder(place, realDir, entries) {
  const { folder } = place;
  const files = [];
  const dirs = [''];
  const outsideLinks = [];
  const errors = [];
  const warnings = [];
  const hashLines = [];
  const toRead = [];
  const realPrefix = realDir.endsWith('/') ? realDir : `${realDir}/`;
  let count = 0;

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
      warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlink does not resolve; ignored` });
      return;
    }
    if (!real.startsWith(realPrefix)) {
      outsideLinks.push(rel);
      warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlink points outside the skill folder; ignored` });
      return;
    }
    let isFile = false;
    try {
      isFile = statSync(real).isFile();
    } catch {
      // Treated as not a file.
    }
    if (isFile) toRead.push({ rel, path: real, follow: true });
    else warnings.push({ code: 'SYMLINK_IGNORED', message: `${folder}/${rel}: symlinked folders are not followed` });
  };

  const stack = [{ rel: '', path: folder, depth: 0, known: entries }];
  walk: while (stack.length > 0) {
    const { rel, path, depth, known } = stack.pop();
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
        if (entry.name === '.git') continue;
        if (depth + 1 > LIMITS.maxDepth) {
          errors.push({ code: 'SKILL_TOO_DEEP', message: `${folder}/${childRel}: folders nest deeper than ${LIMITS.maxDepth} levels` });
          continue;
        }
        dirs.push(childRel);
        stack.push({ rel: childRel, path: childPath, depth: depth + 1 });
      } else if (entry.isFile()) toRead.push({ rel: childRel, path: childPath, follow: false });
      else if (entry.isSymbolicLink()) addLink(childRel, childPath);
      else hashLines.push(`s\0${childRel}`);
    }
  }
  if (count > LIMITS.maxFiles) {
    errors.push({ code: 'SKILL_TOO_MANY_FILES', message: `${folder}: more than ${LIMITS.maxFiles} files; a skill's hash must cover all of them` });
  }

  // SKILL.md first: the references it mentions are the ones whose text is kept.
  toRead.sort((a, b) => (a.rel === 'SKILL.md' ? -1 : b.rel === 'SKILL.md' ? 1 : 0));
  let skillText;
  let readBytes = 0;
  for (const { rel, path, follow } of toRead) {
    const isSkillMd = rel === 'SKILL.md';
    const max = isSkillMd ? LIMITS.skillMdMaxBytes : readBytes > LIMITS.hashTotalMaxBytes ? 0 : LIMITS.hashContentMaxBytes;
    let result;
    try {
      result = readBounded(path, follow, max);
    } catch (err) {
      if (IGNORED_ERRORS.has(errorCode(err))) continue; // vanished or swapped mid-scan: the watcher reindexes
      errors.push({ code: 'SKILL_FILE_UNREADABLE', message: `${folder}/${rel}: cannot read the file (${errorCode(err)})` });
      continue;
    }
    if (result.special) {
      hashLines.push(`s\0${rel}`);
      continue;
    }
    const file = { path: rel, size: result.size };
    let digest = `m${result.mtimeMs}`;
    if (result.bytes) {
      readBytes += result.bytes.length;
      digest = `c${createHash('sha256').update(result.bytes).digest('hex')}`;
      if (isSkillMd) {
        skillText = decodeText(result.bytes);
        if (skillText === undefined) file.binary = true;
        else file.text = skillText;
      } else if ((rel.startsWith('references/') || rel.startsWith('assets/')) && skillText?.includes(rel)) {
        const prefix = decodePrefix(result.bytes, LIMITS.keepBytes);
        if (prefix === undefined) file.binary = true;
        else {
          file.text = prefix.text;
          if (prefix.truncated) file.truncated = true;
        }
      }
    }
    hashLines.push(`f\0${rel}\0${result.size}\0${digest}`);
    files.push(file);
  }
  hashLines.sort();
  dirs.sort();
  const hash = createHash('sha256').update(hashLines.join('\n')).digest('hex');
  return { ...place, realDir, files, dirs, outsideLinks, hash, errors, warnings };
}

/** Real paths of `root` and of every folder between it and `path`, for loop detection below `path`. */
function realAncestors(root, path) {
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

function holdsSkillMd(entries) {
  return entries.some((e) => e.name === 'SKILL.md' && (e.isFile() || e.isSymbolicLink()));
}

/**
 * Find skill folders under `start` (a folder `start.depth` levels below the root) and scan each, posting
 * scanned folders in batches. A folder holding SKILL.md is a skill (not searched further); others are
 * searched to a bounded depth; symlinked folders are followed unless they lead back to a folder being
 * searched; .git and node_modules are skipped.
 */
function indexTree(id, root, start) {
  const treeDirs = [];
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
    parentPort.postMessage({ id, kind: 'batch', folders: batch });
    batch = [];
  };
  const stack = [{ path: start.path, real: startReal, depth: start.depth, ancestors: start.path === root.path ? new Set() : realAncestors(root.path, start.path) }];
  let unreadable;
  while (stack.length > 0) {
    const { path, real, depth, ancestors } = stack.pop();
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

/** Rescan known skill folders; null for one that is gone or no longer holds SKILL.md. */
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

parentPort.on('message', (request) => {
  try {
    if (request.kind === 'index') {
      parentPort.postMessage({ id: request.id, kind: 'done', tree: indexTree(request.id, request.root, request.start) });
    } else if (request.kind === 'scan') {
      parentPort.postMessage({ id: request.id, kind: 'done', folders: scanPlaces(request.places) });
    } else {
      parentPort.postMessage({ id: request.id, kind: 'error', message: `unknown request ${String(request.kind)}` });
    }
  } catch (err) {
    parentPort.postMessage({ id: request.id, kind: 'error', message: messageOf(err) });
  }
});
