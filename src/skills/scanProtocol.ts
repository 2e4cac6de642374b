// The messages between folderScanner.ts (main thread) and scanWorker.mjs (its worker thread). Types only:
// the worker is plain JavaScript that imports these through JSDoc, so `npm run typecheck` checks both ends
// against this one file.
import type { ScanLimits } from './scanLimits.ts';
import type { SkillProblem } from './types.ts';

/** A file of a skill folder, as the scan saw it. */
export interface ScannedFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** SKILL.md's text; for a file under references/ or assets/ that SKILL.md mentions, its first bytes as text. */
  text?: string;
  /** `text` holds only the start of the file. */
  truncated?: boolean;
  /** Not UTF-8 text (SKILL.md, or a mentioned reference). */
  binary?: boolean;
  /** A markdown file's whole text (up to markdownMaxBytes): the scripts it names are referenced when SKILL.md reaches it. */
  markdown?: string;
}

/** Where a skill folder was found. */
export interface FolderPlace {
  root: string;
  rootIndex: number;
  /** The folder as discovered (not resolved). */
  folder: string;
}

export interface ScannedFolder extends FolderPlace {
  realDir: string;
  /** Regular files, including symlinks resolving to a file inside the folder. */
  files: ScannedFile[];
  /** Folders inside the skill folder, relative (`''` is the folder itself). */
  dirs: string[];
  /** Symlinks that resolve outside the folder (never read). */
  outsideLinks: string[];
  /**
   * sha256 over every folder, file (path and whole content) and symlink (path and text) the sandbox exposes,
   * hidden ones and .git included. A folder with errors (a symlink leading out, over a bound) has a hash
   * that only says it changed.
   */
  hash: string;
  errors: SkillProblem[];
  warnings: SkillProblem[];
}

export interface TreeScan {
  /** Non-skill folders searched (root, groups): the watcher watches them for skills appearing. */
  treeDirs: Array<{ path: string; depth: number }>;
  /** Set when maxFolders was reached. */
  truncated: boolean;
  /** Set when the start folder could not be read. */
  unreadable?: string;
}

/** A folder's content hash, or why it has none (what would make it an invalid skill). */
export type FolderHash = { hash: string } | { error: string };

/** What the worker is started with. */
export interface ScanWorkerData {
  limits: ScanLimits;
}

/** Hash any folder by the skill hash algorithm. */
export interface HashRequest {
  kind: 'hash';
  dir: string;
}

/** Find skill folders under `start` (`start.depth` levels below `root`), scanned folders coming in batches. */
export interface IndexRequest {
  kind: 'index';
  root: { path: string; index: number };
  start: { path: string; depth: number };
}

/** Rescan known folders. */
export interface ScanRequest {
  kind: 'scan';
  places: FolderPlace[];
}

/** A request as the scanner builds it; `WorkerRequest` adds the id that pairs it with its replies. */
export type RequestBody = HashRequest | IndexRequest | ScanRequest;

export type WorkerRequest = RequestBody & { id: number };

/** Any number of `batch` replies (index only), then one `done` or `error`. */
export type Reply =
  | { id: number; kind: 'batch'; folders: ScannedFolder[] }
  | { id: number; kind: 'done'; tree?: TreeScan; folders?: Array<ScannedFolder | null>; hashed?: FolderHash }
  | { id: number; kind: 'error'; message: string };
