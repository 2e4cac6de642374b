// Copies a folder the sandbox will see (the skill, the turn's input files) into the run's private folder, with
// bounds, so what runs is exactly the bytes copied and no one can change them during the run.
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';

export interface CopyBounds {
  maxBytes: number;
  maxEntries: number;
}

export const DEFAULT_SKILL_COPY_BOUNDS: CopyBounds = { maxBytes: 64 * 1024 * 1024, maxEntries: 10_000 };

// Folder walks and small files are copied with synchronous calls: each is a tiny local syscall, far cheaper than a
// thread-pool round trip, and a skill is copied before every run. Larger files go through the thread pool.
const SYNC_COPY_BYTES = 256 * 1024;

async function copyOne(source: string, target: string, size: number): Promise<void> {
  if (size <= SYNC_COPY_BYTES) copyFileSync(source, target);
  else await copyFile(source, target);
}

export type CopyOutcome = { ok: true; bytes: number } | { ok: false; reason: string };

/**
 * Copies `from` into the new folder `to`: every file and folder, hidden ones included. Files become readable by
 * everyone (0644, 0755 when executable) so an unprivileged sandbox user can read them.
 * `links: 'inside'` keeps a symlink that resolves inside `from` (same text when relative, an absolute target made
 * relative so it still resolves inside the copy) and refuses one that leads out; `links: 'skip'` leaves symlinks and special files out.
 */
export async function copyFolder(from: string, to: string, bounds: CopyBounds, links: 'inside' | 'skip'): Promise<CopyOutcome> {
  let realFrom: string;
  try {
    realFrom = realpathSync(from);
  } catch {
    return { ok: false, reason: `the folder "${from}" does not exist` };
  }
  let bytes = 0;
  let entries = 0;
  mkdirSync(to, { mode: 0o755 });
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    const list = readdirSync(path.join(realFrom, rel), { withFileTypes: true });
    for (const entry of list) {
      entries += 1;
      if (entries > bounds.maxEntries) return { ok: false, reason: `"${from}" holds more than ${bounds.maxEntries} files and folders` };
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const source = path.join(realFrom, childRel);
      const target = path.join(to, childRel);
      if (entry.isDirectory()) {
        mkdirSync(target, { mode: 0o755 });
        chmodSync(target, 0o755);
        pending.push(childRel);
      } else if (entry.isFile()) {
        const info = lstatSync(source);
        bytes += info.size;
        if (bytes > bounds.maxBytes) return { ok: false, reason: `"${from}" is larger than ${Math.round(bounds.maxBytes / (1024 * 1024))} MiB` };
        await copyOne(source, target, info.size);
        chmodSync(target, (info.mode & 0o111) !== 0 ? 0o755 : 0o644);
      } else if (entry.isSymbolicLink() && links === 'inside') {
        const link = insideLink(realFrom, source, childRel);
        if ('refused' in link) return { ok: false, reason: link.refused };
        symlinkSync(link.text, target);
      } else if (links === 'inside') {
        return { ok: false, reason: `"${childRel}" in the skill folder is not a file, a folder or a symlink` };
      }
    }
  }
  return { ok: true, bytes };
}

/** The text the copy's link gets, or why the link is refused. */
function insideLink(realFrom: string, source: string, rel: string): { text: string } | { refused: string } {
  const text = readlinkSync(source);
  let real: string;
  try {
    real = realpathSync(source);
  } catch {
    return { refused: `the symlink "${rel}" leads nowhere` };
  }
  const relative = path.relative(realFrom, real);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return { refused: `the symlink "${rel}" resolves outside the skill folder` };
  }
  // A link whose own text already leads inside is kept as it is (the hash may cover its text); others are rewritten.
  const lexical = path.resolve(path.dirname(path.join(realFrom, rel)), text);
  if (!path.isAbsolute(text) && lexical.startsWith(`${realFrom}${path.sep}`)) return { text };
  return { text: path.relative(path.dirname(path.join(realFrom, rel)), real) || '.' };
}
