// Each chat's workspace: one folder per chat under WORKSPACES_DIR, mounted at /workspace in every run of the chat.
// It outlives turns and restarts on the host's disk; on a shared store (Redis) it is also pushed to the store after
// each turn and restored by whichever instance runs the chat next. Idle ones are removed after WORKSPACE_TTL_DAYS.
// Every step goes by folder descriptor, never following a link (folderFd.ts).
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { WorkspaceSettings } from '../config/config.ts';
import type { WorkspaceMount } from './workspaceRoom.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { Folder, type Owner, WorkspacePathError, withFolder } from './folderFd.ts';
import type { ManifestSeal } from './manifestSeal.ts';
import { readInside, writeInside } from './safeFiles.ts';
import { pushWorkspace, restoreWorkspace } from './workspaceSync.ts';

export interface ChatWorkspacesOptions {
  settings: Omit<WorkspaceSettings, 'rootSet'>;
  store: Store;
  /** Who owns a chat's files on the host (the executor's answer): files the bot writes must stay the chat's. */
  owner: (chatId: string) => Owner | undefined;
  /** Seals and checks the manifests this instance writes to (and reads from) a shared store. */
  seal: ManifestSeal;
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
    return path.join(this.baseOf(chatId), 'files');
  }

  /** The bot's folder of the chat: the files folder and the bot's records beside it. */
  private baseOf(chatId: string): string {
    return path.join(this.root, this.idOf(chatId));
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
    // lstat: the record is the bot's own, in a folder only the bot writes; a link there is no record. Synchronous and
    // without an error for a missing file: most chats have no workspace, and a thrown ENOENT (its stack) and a
    // thread-pool hop were a fifth of a plain turn's own work.
    const used = usedRecord(path.join(this.baseOf(chatId), 'used.json'));
    if (used === undefined || this.now() - used.mtimeMs < DAY_MS) return;
    await this.open(chatId);
    await this.save(chatId);
  }

  /**
   * The chat's workspace, ready for a turn: made on first use, brought up to date from the store when another
   * instance changed it since, and marked used now (for the idle sweep).
   */
  async open(chatId: string): Promise<ChatWorkspace> {
    const owner = this.options.owner(chatId);
    mkdirSync(this.root, { recursive: true, mode: 0o711 });
    // The chat's own folder is private to the bot (records beside the files); the files folder is the sandbox
    // user's alone, its mode reset at every turn (a script may have opened it to all).
    withFolder(this.root, (root) => {
      const base = root.childOrMake(this.idOf(chatId), 0o711);
      try {
        if (base.stat().uid !== process.getuid?.()) throw new WorkspacePathError(`the workspace of ${chatId} is not the bot's own folder`);
        base.reset(0o711);
        const files = base.childOrMake('files', 0o700, owner);
        try {
          files.reset(0o700, owner);
        } finally {
          files.close();
        }
      } finally {
        base.close();
      }
    });
    const base = this.baseOf(chatId);
    if (this.shared) {
      const restored = await restoreWorkspace({ ...this.syncContext(chatId), ...(owner === undefined ? {} : { owner }) });
      if (restored !== undefined && 'ignored' in restored) this.options.logger.warn({ chatId, why: restored.ignored }, "the store's copy of a workspace was ignored");
      else if (restored !== undefined) this.options.logger.info({ chatId, files: restored.fetched, bytes: restored.bytes, refused: restored.refused }, 'workspace restored from the store');
    }
    await writeInside(base, 'used.json', 'used.json', Buffer.from(JSON.stringify({ chatId, at: this.now() })), undefined, 0o600);
    return this.describe(chatId);
  }

  private syncContext(chatId: string) {
    return { store: this.options.store, seal: this.options.seal, chatId, dir: this.dirOf(chatId), metaDir: this.baseOf(chatId), ttlMs: this.ttlMs, maxBytes: this.options.settings.maxBytes, now: this.now() };
  }

  /** After a turn: on a shared store, pushes what changed so any instance can take the chat over. */
  async save(chatId: string): Promise<void> {
    if (!this.shared) return;
    const pushed = await pushWorkspace(this.syncContext(chatId));
    if (pushed.left.length > 0) this.options.logger.warn({ chatId, left: pushed.left.length, maxBytes: this.options.settings.maxBytes }, 'workspace files over the bound were not copied to the store');
  }

  private get ttlMs(): number {
    return this.options.settings.ttlDays * DAY_MS;
  }

  /** Removes the folders of chats idle for longer than WORKSPACE_TTL_DAYS; returns how many. */
  async sweep(): Promise<number> {
    let root: Folder;
    try {
      root = Folder.open(this.root);
    } catch {
      return 0;
    }
    let removed = 0;
    try {
      for (const name of root.names()) {
        if (!/^[0-9a-f]{32}$/.test(name)) continue;
        const at = await lastUsed(root, name, path.join(this.root, name));
        if (at !== undefined && this.now() - at <= this.ttlMs) continue;
        // By descriptor, at any depth, never following a link a script left.
        root.remove(name);
        removed += 1;
      }
    } finally {
      root.close();
    }
    if (removed > 0) this.options.logger.info({ removed, ttlDays: this.options.settings.ttlDays }, 'idle chat workspaces removed');
    return removed;
  }
}

async function lastUsed(root: Folder, name: string, base: string): Promise<number | undefined> {
  try {
    const at = (JSON.parse((await readInside(base, 'used.json', 'used.json', 4096)).bytes.toString('utf8')) as { at?: unknown }).at;
    if (typeof at === 'number') return at;
  } catch {
    // No record: fall back to the folder's own time.
  }
  return root.lstat(name)?.mtimeMs;
}

/** The used record's status, or undefined when it is missing or cannot be read (then the turn just goes on). */
function usedRecord(file: string): { mtimeMs: number } | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
