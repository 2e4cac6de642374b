// The installed skills on one instance: the store's index made real as folders under a bot-owned skill root
// (INSTALLED_SKILLS_DIR), each written from its bundle and checked against its pinned content hash before the
// registry sees it. A change on any instance is announced on the store's channel; every instance also re-reads
// the index on a timer (the announcement is a hint, delivered at most once) and at start, so a restart or a
// second instance with no shared disk serves exactly the pinned bytes.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError } from '../config/config.ts';
import type { HashFolder } from '../exec/types.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { incomingDirOf } from './leftovers.ts';
import { safeRelative } from './staging.ts';
import { type InstalledSkill, INSTALLS_CHANNEL, readBundle, readIndex } from './installRecords.ts';
import type { IndexSeal } from './indexSeal.ts';

/** Marks the folder as the bot's own cache (see prepare). */
const OWNED_MARK = '.skillbot-installed-skills';

export interface InstalledSkillsOptions {
  store: Store;
  /** The bot-owned folder the registry scans as its last skill root. */
  dir: string;
  hashFolder: HashFolder;
  /** Re-index the registry (after folders changed). */
  reload: () => Promise<void>;
  logger: Logger;
  /** How often the index is re-read without an announcement (default 5 s). */
  pollMs?: number;
  /** Verifies the index's MAC (the state key). */
  seal: IndexSeal;
  /** An index that fails its check (forged, or an older one put back) was ignored: once per revision seen. */
  onIgnored: (revision: string, why: string) => Promise<void>;
}

export class InstalledSkills {
  #skills: InstalledSkill[] = [];
  /** Content hash of what is on disk now, by id (what this instance wrote and verified). */
  readonly #onDisk = new Map<string, string>();
  #queue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #closed = false;
  #revision = '';
  /** The highest revision applied: a sealed index from before it is a rollback, not news. */
  #highest = 0;
  #reported = '';

  constructor(private readonly options: InstalledSkillsOptions) {}

  /**
   * Before the registry opens: the folder exists, and is empty. Whatever an earlier run left is rebuilt from the
   * store (the folder is a cache, the store the truth), so nothing on disk is trusted across a restart.
   */
  static async prepare(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const names = await readdir(dir);
    // Emptying a folder someone pointed here by mistake (a real skills root) would delete their skills.
    if (names.length > 0 && !names.includes(OWNED_MARK)) {
      throw new ConfigError(`INSTALLED_SKILLS_DIR (${dir}) holds files the bot did not write; point it at an empty folder of its own.`);
    }
    for (const name of names) if (name !== OWNED_MARK) await rm(join(dir, name), { recursive: true, force: true });
    await writeFile(join(dir, OWNED_MARK), 'Written by skillbot from its store: emptied and rebuilt at every start.\n');
  }

  /** Writes what the index holds (the registry reloads once if anything changed), then follows changes. */
  async start(): Promise<void> {
    await this.sync();
    this.#unsubscribe = await this.options.store.subscribe(INSTALLS_CHANNEL, () => void this.sync());
    this.#timer = setInterval(() => void this.sync(), this.options.pollMs ?? 5_000);
    this.#timer.unref();
  }

  /** The installed skills as last read from the store. */
  list(): readonly InstalledSkill[] {
    return this.#skills;
  }

  get(id: string): InstalledSkill | undefined {
    return this.#skills.find((skill) => skill.id === id);
  }

  /** Ids installed for other worlds only: not usable in `worldId`. */
  hiddenIn(worldId: string): string[] {
    return this.#skills.filter((skill) => skill.scope !== 'defaults' && skill.scope !== worldId).map((skill) => skill.id);
  }

  /** Brings the folders in line with the store's index now (queued behind a sync already running). */
  sync(): Promise<void> {
    this.#queue = this.#queue.then(() => this.#sync()).catch((error: unknown) => this.options.logger.warn({ err: error }, 'installed skills: syncing with the store failed; trying again shortly'));
    return this.#queue;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#unsubscribe?.().catch(() => undefined);
    await this.#queue;
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    const index = await readIndex(this.options.store, this.options.seal);
    const why = index.ignored ?? (Number(index.status) < this.#highest ? `revision ${index.status} is older than revision ${this.#highest}, already served (an index put back)` : undefined);
    if (why !== undefined) {
      // What is on disk stays as it was: the last index that passed.
      if (this.#reported !== `${index.status}:${why}`) {
        this.#reported = `${index.status}:${why}`;
        this.options.logger.warn({ revision: index.status, why }, 'installed skills: ignored an index that fails its integrity check');
        await this.options.onIgnored(index.status, why);
      }
      return;
    }
    if (index.status === this.#revision) return;
    let changed = false;
    const wanted = new Map(index.skills.map((skill) => [skill.id, skill]));
    for (const id of [...this.#onDisk.keys()]) {
      if (wanted.get(id)?.contentHash === this.#onDisk.get(id)) continue;
      await rm(join(this.options.dir, id), { recursive: true, force: true });
      this.#onDisk.delete(id);
      changed = true;
    }
    const loaded: InstalledSkill[] = [];
    let failed = false;
    for (const skill of index.skills) {
      if (this.#onDisk.get(skill.id) !== skill.contentHash) {
        const problem = await this.#materialize(skill);
        if (problem !== undefined) {
          this.options.logger.error({ skill: skill.id, contentHash: skill.contentHash, problem }, 'installed skills: not loaded');
          failed = true;
          continue;
        }
        changed = true;
      }
      loaded.push(skill);
    }
    this.#skills = loaded;
    // A skill that could not be written is tried again at the next sync, not only at the next change.
    this.#revision = failed ? '' : index.status;
    this.#highest = Math.max(this.#highest, Number(index.status) || 0);
    if (changed) await this.options.reload();
  }

  /** Writes one skill from its bundle beside the root, checks its hash, then moves it in. */
  async #materialize(skill: InstalledSkill): Promise<string | undefined> {
    if (safeRelative(skill.id) !== skill.id || skill.id.includes('/')) return `the id "${skill.id}" is not a folder name`;
    const bundle = await readBundle(this.options.store, skill.contentHash);
    if (bundle === undefined) return 'its bytes are not in the store';
    const incoming = join(incomingDirOf(this.options.dir), `${skill.id}-${randomBytes(4).toString('hex')}`);
    try {
      for (const file of bundle.files) {
        const path = safeRelative(file.path);
        if (path === undefined) return `the bundle holds a path that leaves the folder (${file.path})`;
        await mkdir(dirname(join(incoming, path)), { recursive: true });
        await writeFile(join(incoming, path), Buffer.from(file.data, 'base64'), { flag: 'wx', mode: file.executable ? 0o755 : 0o644 });
      }
      await mkdir(incoming, { recursive: true });
      const hashed = await this.options.hashFolder(incoming);
      if ('error' in hashed) return hashed.error;
      if (hashed.hash !== skill.contentHash) return `its bytes hash to ${hashed.hash.slice(0, 12)}, not the pinned ${skill.contentHash.slice(0, 12)}`;
      const target = join(this.options.dir, skill.id);
      await rm(target, { recursive: true, force: true });
      await rename(incoming, target);
      this.#onDisk.set(skill.id, skill.contentHash);
      return undefined;
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  }
}

/** The store's index read as it is, with no folders written: the CLI's view (a running bot owns the folder). */
export class IndexView {
  #skills: InstalledSkill[] = [];
  constructor(
    private readonly store: Store,
    private readonly seal: IndexSeal,
  ) {}
  list(): readonly InstalledSkill[] {
    return this.#skills;
  }
  get(id: string): InstalledSkill | undefined {
    return this.#skills.find((skill) => skill.id === id);
  }
  async sync(): Promise<void> {
    this.#skills = (await readIndex(this.store, this.seal)).skills;
  }
}
