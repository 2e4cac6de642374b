// Reading and writing a chat's files from the bot's side (the editor, the file listing, the uploader, the sync)
// without ever leaving the folder: scripts write there, so any part of a path may be a symlink or a hard link
// they planted toward a host file or the bot's data. Every component is checked with lstat (no link is ever
// followed), the last one is opened with O_NOFOLLOW and checked again on the open descriptor, and a regular
// file with more than one link is refused (its other name may be anywhere). The calls are synchronous: each is a
// small local syscall, far cheaper than a thread-pool round trip, and a restore makes thousands of them.
import { chownSync, closeSync, constants, fchownSync, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, readSync, type Stats, writeSync } from 'node:fs';
import path from 'node:path';

/** A file-system problem the model (or the person) can act on, in one sentence. */
export class WorkspacePathError extends Error {
  override name = 'WorkspacePathError';
}

export interface Owner {
  uid: number;
  gid: number;
}

/** `rel` as path components, refusing what could climb out (`..`, absolute, NUL). */
export function components(rel: string): string[] {
  if (rel.includes('\0')) throw new WorkspacePathError('the path contains a NUL byte');
  const parts = rel.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new WorkspacePathError(`the path "${rel}" climbs out with ".."`);
  return parts;
}

function lstatOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Checks that every folder on the way to `parts`' last component is a real folder (not a link). */
function checkParents(root: string, parts: string[], shown: string, create?: { owner?: Owner }): string {
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = path.join(current, part);
    const info = lstatOrUndefined(current);
    if (info === undefined && create !== undefined) {
      mkdirSync(current, { mode: 0o755 });
      if (create.owner !== undefined) chownSync(current, create.owner.uid, create.owner.gid);
      continue;
    }
    if (info === undefined) throw new WorkspacePathError(`${shown} does not exist`);
    if (info.isSymbolicLink()) throw new WorkspacePathError(`${shown} goes through a symlink (${part}), which is never followed`);
    if (!info.isDirectory()) throw new WorkspacePathError(`${shown}: ${part} is not a folder`);
  }
  return path.join(root, ...parts);
}

function checkRegular(info: Stats, shown: string): void {
  if (info.isSymbolicLink()) throw new WorkspacePathError(`${shown} is a symlink, which is never followed`);
  if (!info.isFile()) throw new WorkspacePathError(`${shown} is not a regular file`);
  if (info.nlink > 1) throw new WorkspacePathError(`${shown} has other hard links, so it is neither read nor written`);
}

/** What a path is, without following links: undefined when it (or a folder on the way) does not exist. */
export async function entryAt(root: string, rel: string, shown: string): Promise<{ path: string; info: Stats } | undefined> {
  const parts = components(rel);
  // A missing folder on the way means a missing entry; a link on the way is still refused.
  const missingParent = parts.slice(0, -1).some((_, index) => lstatOrUndefined(path.join(root, ...parts.slice(0, index + 1))) === undefined);
  if (missingParent) return undefined;
  const target = parts.length === 0 ? root : checkParents(root, parts, shown);
  const info = lstatOrUndefined(target);
  return info === undefined ? undefined : { path: target, info };
}

/** Reads a regular file inside `root` (at most `maxBytes`; `truncated` says the rest was left). */
export async function readInside(root: string, rel: string, shown: string, maxBytes: number): Promise<{ bytes: Buffer; size: number; truncated: boolean }> {
  const target = checkParents(root, components(rel), shown);
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WorkspacePathError(`${shown} does not exist`);
    if (code === 'ELOOP') throw new WorkspacePathError(`${shown} is a symlink, which is never followed`);
    throw new WorkspacePathError(`${shown} cannot be read (${code ?? 'error'})`);
  }
  try {
    const info = fstatSync(fd);
    checkRegular(info, shown);
    const length = Math.min(info.size, maxBytes);
    const bytes = Buffer.alloc(length);
    let offset = 0;
    while (offset < length) {
      const read = readSync(fd, bytes, offset, length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return { bytes: bytes.subarray(0, offset), size: info.size, truncated: info.size > offset };
  } finally {
    closeSync(fd);
  }
}

/** Writes a regular file inside `root` (creating its folders), replacing its content; never through a link. */
export async function writeInside(root: string, rel: string, shown: string, bytes: Uint8Array, owner?: Owner): Promise<void> {
  const parts = components(rel);
  if (parts.length === 0) throw new WorkspacePathError(`${shown} is the workspace folder itself, not a file`);
  const target = checkParents(root, parts, shown, { ...(owner === undefined ? {} : { owner }) });
  let fd: number;
  try {
    fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new WorkspacePathError(`${shown} is a symlink, which is never followed`);
    if (code === 'EISDIR') throw new WorkspacePathError(`${shown} is a folder`);
    throw new WorkspacePathError(`${shown} cannot be written (${code ?? 'error'})`);
  }
  try {
    checkRegular(fstatSync(fd), shown);
    ftruncateSync(fd, 0);
    for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset, offset);
    if (owner !== undefined) fchownSync(fd, owner.uid, owner.gid);
  } finally {
    closeSync(fd);
  }
}
