// Whether files the bot is about to write for Claude (the editor's, a script call's `files`) fit in the chat's
// workspace: the same bounds a run is held to while it writes, checked before anything is written.
import path from 'node:path';
import { limitSentence, scanTree } from './workspaceTree.ts';

const BLOCK = 4096;

/** The chat's workspace: mounted read-write at /workspace, the working directory, bounded while the run writes. */
export interface WorkspaceMount {
  dir: string;
  maxBytes: number;
  maxFiles: number;
}

/** A file about to be written: its path relative to the workspace (`/`-separated) and its size. */
export interface PlannedWrite {
  rel: string;
  bytes: number;
}

/** Undefined when every write fits; otherwise the sentence the model (and the person) is told, naming the bound. */
export async function workspaceRoomProblem(workspace: WorkspaceMount, writes: PlannedWrite[]): Promise<string | undefined> {
  const usage = await scanTree(workspace.dir);
  const after = { bytes: usage.bytes, files: usage.files };
  for (const write of writes) {
    const existing = usage.entries.get(path.posix.normalize(write.rel));
    // A new file takes whole blocks of the disk.
    after.bytes += Math.ceil(write.bytes / BLOCK) * BLOCK - (existing?.kind === 'file' ? existing.charged : 0);
    if (existing === undefined) after.files += 1;
  }
  const limit = { bytes: workspace.maxBytes, files: workspace.maxFiles };
  if (after.bytes <= limit.bytes && after.files <= limit.files) return undefined;
  return `${limitSentence(limit, after)}; remove files first`;
}
