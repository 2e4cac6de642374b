// Enforces a workspace's bounds while a run writes: the tree is measured every few tens of milliseconds and the
// run is ended the moment it holds more than the bound (or more than it held at the start, when a run begins over
// it: files may be removed, never added). RLIMIT_FSIZE (set to the room left) bounds any single file exactly.
import { limitSentence, scanTree, type TreeScan } from './workspaceTree.ts';

export interface WorkspaceLimit {
  bytes: number;
  files: number;
}

export interface WorkspaceGuard {
  /** Set once the bound was crossed: the sentence for the person and the model. */
  readonly tripped: string | undefined;
  stop(): void;
}

const POLL_MS = 50;

/** The bound a run may not cross, given what the workspace held when it started. */
export function effectiveLimit(limit: WorkspaceLimit, start: TreeScan): WorkspaceLimit {
  return { bytes: Math.max(limit.bytes, start.bytes), files: Math.max(limit.files, start.files) };
}

export function guardWorkspace(dir: string, limit: WorkspaceLimit, start: TreeScan, onTrip: () => void): WorkspaceGuard {
  const bound = effectiveLimit(limit, start);
  let tripped: string | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    const scan = await scanTree(dir, bound);
    if (stopped) return;
    if (scan.bytes > bound.bytes || scan.files > bound.files) {
      tripped = limitSentence(limit, scan);
      onTrip();
      return;
    }
    timer = setTimeout(() => void tick(), POLL_MS);
  };
  timer = setTimeout(() => void tick(), POLL_MS);
  return {
    get tripped() {
      return tripped;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
