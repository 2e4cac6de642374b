// Whether files the bot is about to write for Claude (the editor's, a script call's `files`) fit in the chat's
// workspace: the same bounds a run is held to while it writes, checked before anything is written.
import path from 'node:path';
import { scanTree } from '../exec/workspaceTree.ts';

export interface WorkspaceBound {
  dir: string;
  maxBytes: number;
  maxFiles: number;
}

/** A file about to be written: its path relative to the workspace (`/`-separated) and its size. */
export interface PlannedWrite {
  rel: string;
  bytes: number;
}

/** Undefined when every write fits; otherwise the sentence the model (and the person) is told. */
export async function workspaceRoomProblem(workspace: WorkspaceBound, writes: PlannedWrite[]): Promise<string | undefined> {
  const usage = await scanTree(workspace.dir);
  let bytes = usage.bytes;
  let files = usage.files;
  for (const write of writes) {
    const existing = usage.entries.get(path.posix.normalize(write.rel));
    bytes += write.bytes - (existing?.kind === 'file' ? existing.size : 0);
    if (existing === undefined) files += 1;
  }
  if (bytes <= workspace.maxBytes && files <= workspace.maxFiles) return undefined;
  return `workspace limit reached (${Math.round(workspace.maxBytes / (1024 * 1024))} MiB, ${workspace.maxFiles} files); remove files first`;
}
