// The few file operations indexing needs, on Node's callback API: for thousands of small files the
// promise API (FileHandle) costs several times more per file, and a cold index reads about 30,000.
// A small file costs three operations (open, read, close); only files filling the first read are stat'ed.
import { close, constants, fstat, open, read, readdir, type Dirent } from 'node:fs';

const FIRST_READ_BYTES = 16 * 1024;
/** First-read buffers are reused: allocating one per file made garbage collection the main cost. */
const spareBuffers: Buffer[] = [];
const MAX_SPARE_BUFFERS = 256;

export interface BoundedRead {
  size: number;
  /** The whole content, unless the file is larger than the cap (then only size and mtime are known). */
  bytes?: Buffer;
  /** Set for files read by size only. */
  mtimeMs?: number;
  /** Not a regular file after all (a FIFO or device swapped in): never read. */
  special: boolean;
}

export function readEntries(path: string): Promise<Dirent[]> {
  return new Promise((resolve, reject) => {
    readdir(path, { withFileTypes: true }, (err, entries) => (err ? reject(err) : resolve(entries)));
  });
}

function readFully(fd: number, into: Buffer, from: number, done: (err: Error | null, length: number) => void): void {
  if (from >= into.length) return done(null, from);
  read(fd, into, from, into.length - from, from, (err, bytesRead) => {
    if (err) return done(err, from);
    if (bytesRead === 0) return done(null, from);
    readFully(fd, into, from + bytesRead, done);
  });
}

/**
 * Read a file of at most `maxBytes`. Opened non-blocking (a FIFO can never hang the read) and, unless
 * `follow`, without following a symlink swapped in since the folder was listed.
 */
export function readBounded(path: string, follow: boolean, maxBytes: number): Promise<BoundedRead> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW);
  return new Promise((resolve, reject) => {
    open(path, flags, (openErr, fd) => {
      if (openErr) return reject(openErr);
      // Closing is not awaited: the result does not depend on it.
      const finish = (err: Error | null, result?: BoundedRead): void => {
        close(fd, () => undefined);
        if (err) reject(err);
        else if (result) resolve(result);
      };
      const first = spareBuffers.pop() ?? Buffer.allocUnsafe(FIRST_READ_BYTES);
      const release = (): void => {
        if (spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(first);
      };
      read(fd, first, 0, FIRST_READ_BYTES, 0, (readErr, bytesRead) => {
        if (readErr) {
          release();
          const code = (readErr as NodeJS.ErrnoException).code;
          return code === 'EAGAIN' || code === 'EISDIR' ? finish(null, { size: 0, special: true }) : finish(readErr);
        }
        if (bytesRead < FIRST_READ_BYTES) {
          const bytes = Buffer.from(first.subarray(0, bytesRead));
          release();
          return finish(null, { size: bytesRead, bytes, special: false });
        }
        fstat(fd, (statErr, st) => {
          if (statErr || !st.isFile() || st.size > maxBytes) release();
          if (statErr) return finish(statErr);
          if (!st.isFile()) return finish(null, { size: 0, special: true });
          if (st.size > maxBytes) return finish(null, { size: st.size, mtimeMs: st.mtimeMs, special: false });
          const all = Buffer.allocUnsafe(Math.max(st.size, bytesRead));
          first.copy(all, 0, 0, bytesRead);
          release();
          readFully(fd, all, bytesRead, (err, length) => finish(err, { size: length, bytes: all.subarray(0, length), special: false }));
        });
      });
    });
  });
}
