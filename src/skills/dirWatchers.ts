// A set of non-recursive fs.watch watchers, one per folder. Recursive fs.watch on Linux in Node 20 is
// unreliable, so the registry watches each root, group and skill folder (and the skill's subfolders) itself.
// Watchers never keep the process alive and never throw into the event loop.
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../ops/log.ts';

/** Watchers started between two turns of the event loop. */
const SLICE = 1000;

export type WatchListener = (dir: string, filename: string | null) => void;

export class DirWatchers {
  private readonly watchers = new Map<string, FSWatcher>();
  private warnedLimit = false;
  private closed = false;

  constructor(
    private readonly listener: WatchListener,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.watchers.size;
  }

  has(dir: string): boolean {
    return this.watchers.has(dir);
  }

  add(dir: string): void {
    if (this.closed || this.watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, filename) => {
        try {
          this.listener(dir, typeof filename === 'string' ? filename : null);
        } catch (err) {
          this.logger.error({ err, dir }, 'skills: watch handler failed');
        }
      });
    } catch (err) {
      this.reportFailure(dir, err);
      return;
    }
    watcher.on('error', (err) => {
      // A watched folder that disappears may end its watcher with an error; the parent's event reindexes.
      this.logger.debug({ err, dir }, 'skills: watcher ended');
      this.remove(dir);
    });
    this.watchers.set(dir, watcher);
  }

  remove(dir: string): void {
    const watcher = this.watchers.get(dir);
    if (!watcher) return;
    this.watchers.delete(dir);
    watcher.close();
  }

  /**
   * Make the watched set exactly `wanted`. Starting a watcher is a synchronous call; tens of thousands of
   * them are started in slices so the event loop keeps serving turns meanwhile.
   */
  async sync(wanted: ReadonlySet<string>): Promise<void> {
    for (const dir of [...this.watchers.keys()]) if (!wanted.has(dir)) this.remove(dir);
    let started = 0;
    for (const dir of wanted) {
      if (this.closed) return;
      if (this.watchers.has(dir)) continue;
      this.add(dir);
      started += 1;
      if (started % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Stop every watcher; later adds are ignored. */
  closeAll(): void {
    this.closed = true;
    for (const dir of [...this.watchers.keys()]) this.remove(dir);
  }

  private reportFailure(dir: string, err: unknown): void {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
    if (code === 'ENOSPC' || code === 'EMFILE') {
      if (!this.warnedLimit) {
        this.warnedLimit = true;
        this.logger.warn(
          { dir, code },
          'skills: the system limit on watched folders is reached; some skill edits need `reload` (raise fs.inotify.max_user_watches)',
        );
      }
      return;
    }
    this.logger.debug({ err, dir }, 'skills: cannot watch folder');
  }
}
