// Each chat's workspace: one folder per chat under WORKSPACES_DIR, mounted at /workspace in every run of the chat.
// It outlives turns and restarts on the host's disk; on a shared store (Redis) it is also pushed to the store after
// each turn and restored by whichever instance runs the chat next. Idle ones are removed after WORKSPACE_TTL_DAYS.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceSettings } from '../config/config.ts';
import type { WorkspaceMount } from '../exec/types.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import type { Owner } from './safeFiles.ts';
import { pushWorkspace, restoreWorkspace } from './workspaceSync.ts';

export interface ChatWorkspacesOptions {
  settings: Omit<WorkspaceSettings, 'rootSet'>;
  store: Store;
  /** Who owns a chat's files on the host (the executor's answer): files the bot writes must stay the chat's. */
  owner: (chatId: string) => Owner | undefined;
  logger: Logger;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The host folder of a chat's files (what exec mounts at /workspace), with its bounds. */
export interface ChatWorkspace extends WorkspaceMount {
  chatId: string;
  owner?: Owner;
}

export class ChatWorkspaces {
  private readonly root: string;
  private readonly now: () => number;

  constructor(private readonly options: ChatWorkspacesOptions) {
    this.root = path.resolve(options.settings.root);
    this.now = options.now ?? Date.now;
  }

  /** Whether workspaces travel through the store (only a store other instances share). */
  private get shared(): boolean {
    return this.options.store.kind === 'redis';
  }

  private idOf(chatId: string): string {
    return createHash('sha256').update(chatId).digest('hex').slice(0, 32);
  }

  /** The chat's folder (whether or not it exists yet). */
  dirOf(chatId: string): string {
    return path.join(this.root, this.idOf(chatId), 'files');
  }

  private metaOf(chatId: string): { dir: string; used: string; sync: string } {
    const base = path.join(this.root, this.idOf(chatId));
    return { dir: base, used: path.join(base, 'used.json'), sync: path.join(base, 'sync.json') };
  }

  /** The chat's workspace as runs see it (folder and bounds), without touching the disk or the store. */
  describe(chatId: string): ChatWorkspace {
    const owner = this.options.owner(chatId);
    return { chatId, dir: this.dirOf(chatId), maxBytes: this.options.settings.maxBytes, maxFiles: this.options.settings.maxFiles, ...(owner === undefined ? {} : { owner }) };
  }

  /**
   * A turn that touched no file: keeps the workspace from looking idle to the sweep (and its store copy from
   * expiring) at the cost of one stat a turn, and a full open and save at most once a day.
   */
  async touch(chatId: string): Promise<void> {
    const used = await stat(this.metaOf(chatId).used).catch(() => undefined);
    if (used === undefined || this.now() - used.mtimeMs < DAY_MS) return;
    await this.open(chatId);
    await this.save(chatId);
  }

  /**
   * The chat's workspace, ready for a turn: made on first use, brought up to date from the store when another
   * instance changed it since, and marked used now (for the idle sweep).
   */
  async open(chatId: string): Promise<ChatWorkspace> {
    const meta = this.metaOf(chatId);
    const dir = this.dirOf(chatId);
    const owner = this.options.owner(chatId);
    // The chat's own folder is private to the bot; the files folder is the sandbox user's.
    await mkdir(meta.dir, { recursive: true, mode: 0o711 });
    await mkdir(dir, { recursive: true, mode: 0o755 });
    if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
    if (this.shared) {
      const restored = await restoreWorkspace({ store: this.options.store, chatId, dir, stateFile: meta.sync, ttlMs: this.ttlMs, ...(owner === undefined ? {} : { owner }), now: this.now() });
      if (restored !== undefined) this.options.logger.info({ chatId, files: restored.fetched, bytes: restored.bytes }, 'workspace restored from the store');
    }
    await writeFile(meta.used, JSON.stringify({ chatId, at: this.now() }), { mode: 0o600 });
    return this.describe(chatId);
  }

  /** After a turn: on a shared store, pushes what changed so any instance can take the chat over. */
  async save(chatId: string): Promise<void> {
    if (!this.shared) return;
    const meta = this.metaOf(chatId);
    await pushWorkspace({ store: this.options.store, chatId, dir: this.dirOf(chatId), stateFile: meta.sync, ttlMs: this.ttlMs, now: this.now() });
  }

  private get ttlMs(): number {
    return this.options.settings.ttlDays * DAY_MS;
  }

  /** Removes the folders of chats idle for longer than WORKSPACE_TTL_DAYS; returns how many. */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!/^[0-9a-f]{32}$/.test(name)) continue;
      const base = path.join(this.root, name);
      const at = await lastUsed(path.join(base, 'used.json'), base);
      if (at !== undefined && this.now() - at <= this.ttlMs) continue;
      await rm(base, { recursive: true, force: true });
      removed += 1;
    }
    if (removed > 0) this.options.logger.info({ removed, ttlDays: this.options.settings.ttlDays }, 'idle chat workspaces removed');
    return removed;
  }
}

async function lastUsed(file: string, base: string): Promise<number | undefined> {
  try {
    const at = (JSON.parse(await readFile(file, 'utf8')) as { at?: unknown }).at;
    if (typeof at === 'number') return at;
  } catch {
    // No record: fall back to the folder's own time.
  }
  return stat(base).then((info) => info.mtimeMs).catch(() => undefined);
}

/**
 * Why the sandbox user (another uid, when the bot is root) could not reach `dir`: the first existing folder on
 * the way that others may not enter, or undefined when every one may be entered. bwrap opens the folder it
 * mounts as that user, so a private parent (a home folder, a 0700 temp folder) hides the workspace from it.
 */
export function unreachableParent(dir: string): string | undefined {
  let current = path.resolve(dir);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const folder of chain) {
    let mode: number;
    try {
      mode = statSync(folder).mode;
    } catch {
      return undefined; // Not made yet: it is created traversable.
    }
    if ((mode & 0o001) === 0) return `${folder} is mode ${(mode & 0o777).toString(8).padStart(4, '0')}`;
  }
  return undefined;
}
