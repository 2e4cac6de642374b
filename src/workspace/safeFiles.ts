// Reading and writing a chat's files from the bot's side (the editor, the file listing, the uploader, the sync)
// without ever leaving the folder: scripts write there, so any part of a path may be a symlink or a hard link
// they planted toward a host file or the bot's data. Every component is checked with lstat (no link is ever
// followed), the last one is opened with O_NOFOLLOW and checked again on the open descriptor, and a regular
// file with more than one link is refused (its other name may be anywhere).
import { constants, type Stats } from 'node:fs';
import { chown, lstat, mkdir, open } from 'node:fs/promises';
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

async function lstatOrUndefined(target: string): Promise<Stats | undefined> {
  try {
    return await lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Checks that every folder on the way to `parts`' last component is a real folder (not a link). */
async function checkParents(root: string, parts: string[], shown: string, create?: { owner?: Owner }): Promise<string> {
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = path.join(current, part);
    const info = await lstatOrUndefined(current);
    if (info === undefined && create !== undefined) {
      await mkdir(current, { mode: 0o755 });
      if (create.owner !== undefined) await chown(current, create.owner.uid, create.owner.gid);
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

/** What a path is, without following links: undefined when it does not exist. */
export async function entryAt(root: string, rel: string, shown: string): Promise<{ path: string; info: Stats } | undefined> {
  const parts = components(rel);
  const target = parts.length === 0 ? root : await checkParents(root, parts, shown);
  const info = await lstatOrUndefined(target);
  return info === undefined ? undefined : { path: target, info };
}

/** Reads a regular file inside `root` (at most `maxBytes`; `truncated` says the rest was left). */
export async function readInside(root: string, rel: string, shown: string, maxBytes: number): Promise<{ bytes: Buffer; size: number; truncated: boolean }> {
  const target = await checkParents(root, components(rel), shown);
  let handle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WorkspacePathError(`${shown} does not exist`);
    if (code === 'ELOOP') throw new WorkspacePathError(`${shown} is a symlink, which is never followed`);
    throw new WorkspacePathError(`${shown} cannot be read (${code ?? 'error'})`);
  }
  try {
    const info = await handle.stat();
    checkRegular(info, shown);
    const length = Math.min(info.size, maxBytes);
    const bytes = Buffer.alloc(length);
    let offset = 0;
    while (offset < length) {
      const { bytesRead } = await handle.read(bytes, offset, length - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { bytes: bytes.subarray(0, offset), size: info.size, truncated: info.size > offset };
  } finally {
    await handle.close();
  }
}

/** Writes a regular file inside `root` (creating its folders), replacing its content; never through a link. */
export async function writeInside(root: string, rel: string, shown: string, bytes: Uint8Array, owner?: Owner): Promise<void> {
  const parts = components(rel);
  if (parts.length === 0) throw new WorkspacePathError(`${shown} is the workspace folder itself, not a file`);
  const target = await checkParents(root, parts, shown, { ...(owner === undefined ? {} : { owner }) });
  let handle;
  try {
    handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new WorkspacePathError(`${shown} is a symlink, which is never followed`);
    if (code === 'EISDIR') throw new WorkspacePathError(`${shown} is a folder`);
    throw new WorkspacePathError(`${shown} cannot be written (${code ?? 'error'})`);
  }
  try {
    checkRegular(await handle.stat(), shown);
    await handle.truncate(0);
    await handle.write(bytes, 0, bytes.byteLength, 0);
    if (owner !== undefined) await handle.chown(owner.uid, owner.gid);
  } finally {
    await handle.close();
  }
}
