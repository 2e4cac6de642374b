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
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { errorCode, messageOf } from './scanFiles.mjs';
import { scanFolder } from './scanFolder.mjs';

/** @typedef {import('node:fs').Dirent} Dirent */
/** @typedef {import('./scanProtocol.ts').FolderHash} FolderHash */
/** @typedef {import('./scanProtocol.ts').FolderPlace} FolderPlace */
/** @typedef {import('./scanProtocol.ts').IndexRequest} IndexRequest */
/** @typedef {import('./scanProtocol.ts').Reply} Reply */
/** @typedef {import('./scanProtocol.ts').ScannedFolder} ScannedFolder */
/** @typedef {import('./scanProtocol.ts').ScanWorkerData} ScanWorkerData */
/** @typedef {import('./scanProtocol.ts').TreeScan} TreeScan */
/** @typedef {import('./scanProtocol.ts').WorkerRequest} WorkerRequest */

if (parentPort === null) throw new Error('scanWorker.mjs runs in a worker thread: start it through folderScanner.ts');
const port = parentPort;
const LIMITS = /** @type {ScanWorkerData} */ (workerData).limits;
const SKIPPED = new Set(['.git', 'node_modules']);
const BATCH = 100;

/**
 * Every message to the main thread goes through here, so each is checked against the protocol.
 * @param {Reply} reply
 */
function post(reply) {
  port.postMessage(reply);
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
      batch.push(scanFolder({ root: root.path, rootIndex: root.index, folder: path }, real, entries, LIMITS));
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
      return holdsSkillMd(entries) ? scanFolder(place, realpathSync(place.folder), entries, LIMITS) : null;
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
  const scanned = scanFolder({ root: dir, rootIndex: 0, folder: dir }, real, entries, LIMITS);
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
