// Private copies of skill folders, each checked against the hash a person approved, shared by the runs that need
// the same bytes. A copy is made and hashed once per content hash (not once per run): a chat's shell command
// mounts every skill loaded in the chat, and re-copying them all for each command would dominate its cost.
// Copies are the bot's own files, mounted read-only; nothing else writes them, so a copy verified once stays
// exactly the approved bytes for as long as it is kept.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyFolder, type CopyBounds } from './folderCopy.ts';
import type { HashFolder } from './types.ts';

export interface VerifiedCopy {
  dir: string;
  release(): void;
}

interface Entry {
  ready: Promise<{ dir: string } | { refused: string }>;
  refs: number;
  usedAt: number;
}

/** Copies kept while unused; older unused ones are removed. */
const KEEP_UNUSED = 32;

export class VerifiedCopies {
  private readonly root: string;
  private readonly entries = new Map<string, Entry>();
  private made = 0;

  constructor(
    private readonly hashFolder: HashFolder,
    private readonly bounds: CopyBounds,
  ) {
    this.root = mkdtempSync(path.join(os.tmpdir(), 'skillbot-skills-'));
    // The sandbox user (another uid when the bot is root) must reach the copies to mount them.
    chmodSync(this.root, 0o755);
  }

  /** The verified copy of `sourceDir` at `expectedHash`, or why there is none (changed since approved, over a bound). */
  async acquire(sourceDir: string, expectedHash: string): Promise<VerifiedCopy | { refused: string }> {
    let entry = this.entries.get(expectedHash);
    if (entry === undefined) {
      entry = { ready: this.make(sourceDir, expectedHash), refs: 0, usedAt: 0 };
      this.entries.set(expectedHash, entry);
    }
    entry.refs += 1;
    const made = await entry.ready;
    if ('refused' in made) {
      entry.refs -= 1;
      // A refusal is not kept: the folder may be put back as it was approved.
      if (this.entries.get(expectedHash) === entry) this.entries.delete(expectedHash);
      return made;
    }
    let released = false;
    return {
      dir: made.dir,
      release: () => {
        if (released) return;
        released = true;
        entry.refs -= 1;
        entry.usedAt = Date.now();
        this.evict();
      },
    };
  }

  /** Removes every copy (the executor is closing). */
  close(): void {
    rmSync(this.root, { recursive: true, force: true });
    this.entries.clear();
  }

  private async make(sourceDir: string, expectedHash: string): Promise<{ dir: string } | { refused: string }> {
    // The copy keeps the folder's own name, in case the hash (or a check beside it) looks at it.
    const holder = path.join(this.root, String(this.made++));
    const dir = path.join(holder, path.basename(path.resolve(sourceDir)));
    const fail = async (refused: string) => {
      await rm(holder, { recursive: true, force: true });
      return { refused };
    };
    mkdirSync(holder, { mode: 0o755 });
    const copied = await copyFolder(sourceDir, dir, this.bounds, 'inside');
    if (!copied.ok) return fail(`the skill cannot be run: ${copied.reason.replace(/^the folder /, 'the skill folder ')}`);
    const hashed = await this.hashFolder(dir);
    if ('error' in hashed) return fail(`the skill cannot be checked against what was approved: ${hashed.error}`);
    if (hashed.hash !== expectedHash) {
      return fail('the skill changed since it was approved, so it was not run; ask again to approve what it holds now');
    }
    return { dir };
  }

  private evict(): void {
    const unused = [...this.entries.entries()].filter(([, entry]) => entry.refs === 0).sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [hash, entry] of unused.slice(0, Math.max(0, unused.length - KEEP_UNUSED))) {
      this.entries.delete(hash);
      void entry.ready.then((made) => ('dir' in made ? rm(path.dirname(made.dir), { recursive: true, force: true }) : undefined)).catch(() => undefined);
    }
  }
}
