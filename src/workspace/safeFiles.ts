// Reading and writing a chat's files from the bot's side (the editor, the file listing, the uploader, the sync)
// without ever leaving the folder: scripts write there, so any part of a path may be a symlink or a hard link
// they planted toward a host file or the bot's data. Every path is walked by descriptor from the workspace folder,
// one component at a time with O_NOFOLLOW (folderFd.ts), the last one is checked again on its open descriptor,
// and a regular file with more than one link is refused (its other name may be anywhere). The calls are
// synchronous: each is a small local syscall, far cheaper than a thread-pool round trip.
import { closeSync, constants, fchownSync, fstatSync, ftruncateSync, readSync, type Stats, writeSync } from 'node:fs';
import { components, type Folder, openPath, type Owner, WorkspacePathError, withFolder } from './folderFd.ts';

export { type Owner, WorkspacePathError } from './folderFd.ts';

function checkRegular(info: Stats, shown: string): void {
  if (info.isSymbolicLink()) throw new WorkspacePathError(`${shown} is a symlink, which is never followed`);
  if (!info.isFile()) throw new WorkspacePathError(`${shown} is not a regular file`);
  if (info.nlink > 1) throw new WorkspacePathError(`${shown} has other hard links, so it is neither read nor written`);
}

/** Runs `use` with the folder holding `parts`' last component open (made, with `make`); undefined when missing. */
function inParent<T>(root: string, parts: string[], shown: string, use: (folder: Folder, name: string) => T, make?: { owner?: Owner }): T | undefined {
  return withFolder(root, (top) => {
    const folder = openPath(top, parts.slice(0, -1), shown, make);
    if (folder === undefined) return undefined;
    try {
      return use(folder, parts[parts.length - 1] as string);
    } finally {
      folder.close();
    }
  });
}

/** What a path is, without following links: undefined when it (or a folder on the way) does not exist. */
export async function entryAt(root: string, rel: string, shown: string): Promise<{ info: Stats } | undefined> {
  const parts = components(rel);
  if (parts.length === 0) return withFolder(root, (folder) => ({ info: folder.stat() }));
  const info = inParent(root, parts, shown, (folder, name) => folder.lstat(name));
  return info === undefined ? undefined : { info };
}

function openError(error: unknown, shown: string, action: string): WorkspacePathError {
  if (error instanceof WorkspacePathError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new WorkspacePathError(`${shown} does not exist`);
  if (code === 'ELOOP') return new WorkspacePathError(`${shown} is a symlink, which is never followed`);
  if (code === 'EISDIR') return new WorkspacePathError(`${shown} is a folder`);
  return new WorkspacePathError(`${shown} cannot be ${action} (${code ?? 'error'})`);
}

/** Opens a regular file inside `root` for reading: its descriptor (the caller closes it) and what it is. */
export function openForRead(root: string, rel: string, shown: string): { fd: number; info: Stats } {
  const parts = components(rel);
  if (parts.length === 0) throw new WorkspacePathError(`${shown} is a folder`);
  let fd: number | undefined;
  try {
    fd = inParent(root, parts, shown, (folder, name) => folder.openFile(name, constants.O_RDONLY));
  } catch (error) {
    throw openError(error, shown, 'read');
  }
  if (fd === undefined) throw new WorkspacePathError(`${shown} does not exist`);
  try {
    const info = fstatSync(fd);
    checkRegular(info, shown);
    return { fd, info };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Reads a regular file inside `root` (at most `maxBytes`; `truncated` says the rest was left). */
export async function readInside(root: string, rel: string, shown: string, maxBytes: number): Promise<{ bytes: Buffer; size: number; truncated: boolean }> {
  const { fd, info } = openForRead(root, rel, shown);
  try {
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

/**
 * Opens a regular file inside `root` for writing (creating its folders), emptied; never through a link. The
 * caller writes and closes the descriptor.
 */
function openForWrite(root: string, rel: string, shown: string, owner?: Owner, mode = 0o644): number {
  const parts = components(rel);
  if (parts.length === 0) throw new WorkspacePathError(`${shown} is the workspace folder itself, not a file`);
  let fd: number | undefined;
  try {
    fd = inParent(root, parts, shown, (folder, name) => folder.openFile(name, constants.O_WRONLY | constants.O_CREAT, mode), { ...(owner === undefined ? {} : { owner }) });
  } catch (error) {
    throw openError(error, shown, 'written');
  }
  if (fd === undefined) throw new WorkspacePathError(`${shown} cannot be written`);
  try {
    checkRegular(fstatSync(fd), shown);
    ftruncateSync(fd, 0);
    if (owner !== undefined) fchownSync(fd, owner.uid, owner.gid);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
}

/** Writes a regular file inside `root` (creating its folders), replacing its content; never through a link. */
export async function writeInside(root: string, rel: string, shown: string, bytes: Uint8Array, owner?: Owner, mode = 0o644): Promise<void> {
  const fd = openForWrite(root, rel, shown, owner, mode);
  try {
    writeAll(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/** Removes `rel` inside `root`, whatever it is (a folder with all it holds); a link goes, never what it names. */
export function removeInside(root: string, rel: string): void {
  const parts = components(rel);
  if (parts.length === 0) return;
  inParent(root, parts, rel, (folder, name) => folder.remove(name));
}

/** The text of the symlink `rel`, never followed; undefined when it is gone. */
export function readlinkInside(root: string, rel: string): string | undefined {
  const parts = components(rel);
  if (parts.length === 0) return undefined;
  try {
    return inParent(root, parts, rel, (folder, name) => folder.readlink(name));
  } catch {
    return undefined;
  }
}
