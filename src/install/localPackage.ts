// A `.skill`/`.zip` file on the host (what skill-creator packages), read for an install from the host's CLI or the
// terminal chat: the same fetch-free path a file shared in a thread takes, bounded before a byte is read.
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export type LocalPackage = { ok: true; name: string; bytes: Uint8Array } | { ok: false; error: string };

/** Whether SOURCE names a file here rather than a repository: a `.skill`/`.zip` name, or a path (`./`, `/`, `~`). */
export function namesLocalFile(source: string): boolean {
  const given = source.trim();
  return /\.(skill|zip)$/i.test(given) && !/^https?:\/\//i.test(given) && !given.startsWith('github:') && !given.startsWith('file:');
}

/** Reads PATH (a leading `~` as a shell reads it, relative to `cwd`), refusing what is not a package or too large. */
export async function readLocalPackage(given: string, maxBytes: number, cwd = process.cwd()): Promise<LocalPackage> {
  const trimmed = given.trim().replace(/^(['"])(.*)\1$/, '$2');
  const file = path.resolve(cwd, trimmed === '~' || trimmed.startsWith('~/') ? path.join(homedir(), trimmed.slice(1)) : trimmed);
  const name = path.basename(file);
  if (!/\.(skill|zip)$/i.test(name)) return { ok: false, error: `${file} is not a .skill or .zip file` };
  try {
    const info = await stat(file);
    if (!info.isFile()) return { ok: false, error: `${file} is not a file` };
    if (info.size > maxBytes) return { ok: false, error: `${file} is ${info.size} bytes, over the ${Math.round(maxBytes / 1048576)} MiB an install may fetch (install.maxMB)` };
    const bytes = await readFile(file);
    if (bytes.byteLength > maxBytes) return { ok: false, error: `${file} grew over the ${Math.round(maxBytes / 1048576)} MiB an install may fetch while it was read` };
    return { ok: true, name, bytes };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, error: `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}` };
  }
}
