// The files a person shares land in the chat's workspace under their own names, so the model can pass their paths
// to scripts. A name already taken by other content gets " (2)" (then " (3)"…) before its extension; never is a
// file overwritten silently. The same bytes under the same name (a re-run of the turn) keep that name.
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import { scanTree } from './workspaceTree.ts';
import type { ChatWorkspace } from './chatWorkspaces.ts';
import { entryAt, readInside, WorkspacePathError, writeInside } from './safeFiles.ts';

export interface SharedFile {
  name: string;
  bytes: Uint8Array;
}

export type Placement = { name: string; placedAs: string; size: number } | { name: string; notPlaced: string };

/** `name (n).ext`, its stem cut at a character boundary so the whole stays within a file system's 255 bytes. */
function numbered(name: string, n: number): string {
  const ext = extname(name);
  const suffix = ` (${n})${ext}`;
  let stem = '';
  for (const char of name.slice(0, name.length - ext.length)) {
    if (Buffer.byteLength(stem + char) + Buffer.byteLength(suffix) > 255) break;
    stem += char;
  }
  return `${stem}${suffix}`;
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Writes each file into the workspace's top folder; what did not fit its bounds is named with the reason. */
export async function placeSharedFiles(workspace: ChatWorkspace, files: readonly SharedFile[]): Promise<Placement[]> {
  const placements: Placement[] = [];
  if (files.length === 0) return placements;
  const usage = await scanTree(workspace.dir);
  for (const file of files) {
    let candidate = file.name;
    for (let n = 2; ; n += 1) {
      const existing = await entryAt(workspace.dir, candidate, candidate).catch(() => undefined);
      if (existing === undefined) break;
      if (existing.info.isFile() && existing.info.size === file.bytes.byteLength) {
        const same = await readInside(workspace.dir, candidate, candidate, existing.info.size).catch(() => undefined);
        if (same !== undefined && sha(same.bytes) === sha(file.bytes)) break;
      }
      candidate = numbered(file.name, n);
    }
    const existing = await entryAt(workspace.dir, candidate, candidate).catch(() => undefined);
    if (existing === undefined) {
      if (usage.bytes + file.bytes.byteLength > workspace.maxBytes || usage.files + 1 > workspace.maxFiles) {
        placements.push({ name: file.name, notPlaced: `the chat's workspace is full (${Math.round(workspace.maxBytes / (1024 * 1024))} MiB, ${workspace.maxFiles} files)` });
        continue;
      }
      try {
        await writeInside(workspace.dir, candidate, `/workspace/${candidate}`, file.bytes, workspace.owner);
      } catch (error) {
        // A name the file system refuses, or a link a script left under it: the person and the model are told.
        placements.push({ name: file.name, notPlaced: error instanceof WorkspacePathError ? error.message : `it could not be written to the workspace (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
        continue;
      }
      usage.bytes += file.bytes.byteLength;
      usage.files += 1;
    }
    placements.push({ name: file.name, placedAs: candidate, size: file.bytes.byteLength });
  }
  return placements;
}
