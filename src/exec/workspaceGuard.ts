// Enforces a workspace's bounds while a run writes: the tree is measured by a walk and the run is ended the moment
// it holds more than the bound. A run does not begin while the workspace is over it (overBound, below: the sizes
// are in the refusal). RLIMIT_FSIZE (set to the room left) bounds any single file exactly. The walk costs what the tree
// holds, so the pause between walks grows with it: at least POLL_MS, and fifteen times the last walk's own time, which
// keeps a guard near a sixteenth of a core however full the workspace is (this host offers no per-folder quota).
import { exceeds, limitSentence, scanTree, type TreeScan } from '../workspace/workspaceTree.ts';

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
/** Pause between walks, as a multiple of the last walk's time: the guard's share of a core stays under 1/(1+15). */
const PAUSE_PER_WALK = 15;

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
    const began = performance.now();
    const scan = await scanTree(dir, bound);
    if (stopped) return;
    if (exceeds(scan, bound, start)) {
      tripped = limitSentence(limit, scan);
      onTrip();
      return;
    }
    timer = setTimeout(() => void tick(), Math.max(POLL_MS, (performance.now() - began) * PAUSE_PER_WALK));
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

/** Why a run may not start in a workspace that holds more than its bounds, with the sizes; undefined when it may. */
export function overBound(scan: { bytes: number; files: number; unwalkable?: string }, bounds: { maxBytes: number; maxFiles: number }): string | undefined {
  const MIB = 1024 * 1024;
  if (scan.bytes > bounds.maxBytes) {
    return `the chat's workspace holds ${(scan.bytes / MIB).toFixed(1)} MiB on disk, over its bound of ${Math.round(bounds.maxBytes / MIB)} MiB (WORKSPACE_MAX_MB), so nothing more runs there until files are removed`;
  }
  if (scan.files > bounds.maxFiles) return `the chat's workspace holds ${scan.files} files, over its bound of ${bounds.maxFiles} (WORKSPACE_MAX_FILES), so nothing more runs there until files are removed`;
  return undefined;
}
