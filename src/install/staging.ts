// The staging folder: where fetched files land, as plain files only (symlinks, submodules and devices are
// recorded, never created), inside bounds. Nothing here ever runs: the folder is read by the scanner and hashed.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { type InstallBounds, mib, OverBound } from './bounds.ts';

export interface StagedFile {
  /** Relative, `/`-separated. */
  path: string;
  size: number;
  executable: boolean;
  sha256: string;
}

/** An entry the fetch refused to write: it is reported as a finding. */
export interface StagedOddity {
  path: string;
  kind: 'symlink' | 'submodule' | 'device' | 'other';
  /** A symlink's target, a submodule's commit, what the entry was. */
  detail: string;
}

export type StagedOrigin =
  | { kind: 'git'; url: string; ref?: string; commit: string }
  | { kind: 'file'; name: string; sha256: string };

export interface Staged {
  dir: string;
  files: StagedFile[];
  oddities: StagedOddity[];
  origin: StagedOrigin;
}

const SAFE_PART = /^[^\0/\\]+$/;

/** A path from a repository or an archive, checked: relative, no `..`, no empty or odd parts. */
export function safeRelative(path: string): string | undefined {
  const parts = path.replace(/\\/g, '/').split('/');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return undefined;
  if (parts.some((part) => part === '' || part === '.' || part === '..' || !SAFE_PART.test(part))) return undefined;
  return parts.join('/');
}

/** Writes files into a fresh folder while counting them against the bounds. */
export class StagingWriter {
  readonly files: StagedFile[] = [];
  readonly oddities: StagedOddity[] = [];
  #bytes = 0;

  private constructor(readonly dir: string, private readonly bounds: InstallBounds) {}

  static async create(parent: string, bounds: InstallBounds): Promise<StagingWriter> {
    const dir = join(parent, `stage-${Date.now()}-${randomBytes(4).toString('hex')}`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new StagingWriter(dir, bounds);
  }

  /** Before reading an entry's bytes: refuse what would cross a bound. */
  admit(path: string, size: number): void {
    if (this.files.length + 1 > this.bounds.maxFiles) throw new OverBound(`more than ${this.bounds.maxFiles} files`);
    if (size > this.bounds.maxFileBytes) throw new OverBound(`${path} is ${mib(size)}, over the ${mib(this.bounds.maxFileBytes)} a file may be`);
    if (this.#bytes + size > this.bounds.maxBytes) throw new OverBound(`more than ${mib(this.bounds.maxBytes)} of files`);
  }

  async write(path: string, bytes: Uint8Array, executable: boolean): Promise<void> {
    const relative = safeRelative(path);
    if (relative === undefined) throw new OverBound(`the entry "${path}" leaves the folder or is not a plain path`);
    this.admit(relative, bytes.byteLength);
    const target = join(this.dir, relative);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    // `wx`: a second entry of the same name (possible in a zip) never overwrites the first.
    await writeFile(target, bytes, { flag: 'wx', mode: executable ? 0o755 : 0o644 });
    this.#bytes += bytes.byteLength;
    this.files.push({ path: relative, size: bytes.byteLength, executable, sha256: createHash('sha256').update(bytes).digest('hex') });
  }

  skip(oddity: StagedOddity): void {
    this.oddities.push(oddity);
  }

  finish(origin: StagedOrigin): Staged {
    this.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { dir: this.dir, files: this.files, oddities: this.oddities, origin };
  }
}

export async function removeStaged(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
