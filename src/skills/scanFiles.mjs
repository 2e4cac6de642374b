// @ts-check
// Reading one file of a skill folder for the scan worker (scanWorker.mjs): bounded, non-blocking, hashed by its
// whole content. Plain JavaScript for the same reason as the worker (type-checked through JSDoc). The buffers
// are this thread's own.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const FIRST_READ = 64 * 1024;
const scratch = Buffer.allocUnsafe(FIRST_READ);
/** Big files stream through the hash in pieces this size. */
const chunk = Buffer.allocUnsafe(1024 * 1024);
/** A read that says "not a regular file after all" (a FIFO, a folder swapped in). */
const SPECIAL_ERRORS = new Set(['EAGAIN', 'EISDIR', 'ESPIPE']);
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * What `hashFile` saw: `special` for what is not a regular file; `over` (size, and mtime when known) for a
 * file over the budget; otherwise its size and digest, with its bytes and first bytes as asked.
 * @typedef {{ special: true }
 *   | { size: number, over: true, mtimeMs?: number }
 *   | { size: number, digest: string, bytes?: Buffer, prefix: Buffer }} HashedFile
 */

/**
 * @param {unknown} err
 * @returns {string}
 */
export function errorCode(err) {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'EIO';
}

/**
 * @param {unknown} err
 * @returns {string}
 */
export function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * UTF-8 text, or undefined for binary (a NUL byte or invalid UTF-8).
 * @param {Uint8Array} bytes
 * @returns {string | undefined}
 */
export function decodeText(bytes) {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Text of at most `max` leading bytes, cut before a character's first byte; undefined for binary.
 * @param {Uint8Array} bytes
 * @param {number} max
 * @returns {{ text: string, truncated: boolean } | undefined}
 */
export function decodePrefix(bytes, max) {
  if (bytes.length <= max) {
    const text = decodeText(bytes);
    return text === undefined ? undefined : { text, truncated: false };
  }
  let end = max;
  // `end` stays below bytes.length (it starts at max): the `?? 0` is for the type checker only.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  const text = decodeText(bytes.subarray(0, end));
  return text === undefined ? undefined : { text, truncated: true };
}

/**
 * Read and hash one whole file, opened non-blocking (a FIFO never hangs the read) and, unless `follow`,
 * without following a symlink swapped in since the folder was listed. At most `budget` bytes are read: a
 * bigger file comes back with its size only (`over`). `keep` (bytes) asks for the file's bytes (SKILL.md)
 * when it is at most that big; `prefix` for its first bytes (a reference's text). Both may be views of
 * reused buffers: use them before the next read.
 * @param {string} path
 * @param {boolean} follow
 * @param {number} budget
 * @param {number} keep
 * @returns {HashedFile}
 */
export function hashFile(path, follow, budget, keep) {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  try {
    let first;
    try {
      first = readSync(fd, scratch, 0, FIRST_READ, 0);
    } catch (err) {
      if (SPECIAL_ERRORS.has(errorCode(err))) return { special: true };
      throw err;
    }
    if (first < FIRST_READ) {
      if (first > budget) return { size: first, over: true };
      const bytes = scratch.subarray(0, first);
      return { size: first, digest: createHash('sha256').update(bytes).digest('hex'), bytes, prefix: bytes };
    }
    const st = fstatSync(fd);
    if (!st.isFile()) return { special: true };
    if (st.size > budget) return { size: st.size, over: true, mtimeMs: st.mtimeMs };
    if (st.size <= keep) {
      const all = Buffer.allocUnsafe(Math.max(st.size, first));
      scratch.copy(all, 0, 0, first);
      let offset = first;
      while (offset < all.length) {
        const read = readSync(fd, all, offset, all.length - offset, offset);
        if (read === 0) break;
        offset += read;
      }
      const bytes = all.subarray(0, offset);
      return { size: offset, digest: createHash('sha256').update(bytes).digest('hex'), bytes, prefix: bytes };
    }
    // Big: streamed through the hash, never held whole. The prefix is decoded by the caller before the
    // scratch buffer is reused, so it is copied out here.
    const hash = createHash('sha256').update(scratch.subarray(0, first));
    const prefix = Buffer.from(scratch.subarray(0, first));
    let offset = first;
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, offset);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
      offset += read;
      if (offset > budget) return { size: offset, over: true, mtimeMs: st.mtimeMs };
    }
    return { size: offset, digest: hash.digest('hex'), prefix };
  } finally {
    closeSync(fd);
  }
}
