// Reading skill folders off the main thread. A cold index reads about 30,000 small files for 10,000
// skills; through the libuv pool each costs three round trips (open, read, close) whose overhead, not the
// disk, dominated: over 3 s of CPU on 2 cores. A worker thread doing plain synchronous reads needs well under
// half of that and leaves the event loop free. The worker (scanWorker.mjs) finds and scans folders; the
// main thread parses and validates what it sends, batch by batch, so both cores work. The messages both
// sides exchange are typed in scanProtocol.ts.
import { Worker } from 'node:worker_threads';
import type { FolderHash, FolderPlace, Reply, RequestBody, ScannedFolder, ScanWorkerData, TreeScan, WorkerRequest } from './scanProtocol.ts';
import { SCAN_LIMITS, type ScanLimits } from './scanLimits.ts';

// The protocol's types, for the modules that read what the scanner returns.
export type { FolderHash, FolderPlace, ScannedFile, ScannedFolder, TreeScan } from './scanProtocol.ts';

/** A scan that takes longer (a hung network mount) fails, and its worker is abandoned for a new one. */
const DEFAULT_TIMEOUT_MS = 120_000;

interface Pending {
  timer: NodeJS.Timeout;
  onBatch?: (folders: ScannedFolder[]) => void;
  /** What `onBatch` threw: the request fails with it once the worker is done. */
  failure?: Error;
  resolve: (reply: Extract<Reply, { kind: 'done' }>) => void;
  reject: (error: Error) => void;
}

export class FolderScanner {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly limits: ScanLimits = SCAN_LIMITS,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  /**
   * Find skill folders under `start` (`depth` levels below `root`) and scan each. Scanned folders arrive
   * through `onBatch` while the search goes on.
   */
  async index(
    root: { path: string; index: number },
    start: { path: string; depth: number },
    onBatch: (folders: ScannedFolder[]) => void,
  ): Promise<TreeScan> {
    const reply = await this.request({ kind: 'index', root, start }, onBatch);
    return reply.tree ?? { treeDirs: [], truncated: false };
  }

  /** Rescan known folders: null for one that is gone or no longer holds SKILL.md. */
  async scan(places: FolderPlace[]): Promise<Array<ScannedFolder | null>> {
    if (places.length === 0) return [];
    const reply = await this.request({ kind: 'scan', places });
    return reply.folders ?? places.map(() => null);
  }

  /**
   * The content hash of any folder, by exactly the algorithm the registry uses for a skill's hash: the
   * executor hashes its copy of a skill with it and runs the copy only when it matches the approved hash.
   */
  async hashFolder(dir: string): Promise<FolderHash> {
    try {
      const reply = await this.request({ kind: 'hash', dir });
      return reply.hashed ?? { error: `${dir}: the scan gave no hash` };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  /** Stop the worker. A later request starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private request(message: RequestBody, onBatch?: (folders: ScannedFolder[]) => void): Promise<Extract<Reply, { kind: 'done' }>> {
    const worker = this.worker ?? this.start();
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.worker === worker) this.worker = undefined;
        this.failAll(worker, new Error(`skill scan took longer than ${this.timeoutMs} ms`));
        void worker.terminate();
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { timer, resolve, reject, ...(onBatch ? { onBatch } : {}) });
      // Referenced only while it has work: an idle scanner never keeps the process alive.
      worker.ref();
      worker.postMessage({ ...message, id } satisfies WorkerRequest);
    });
  }

  private start(): Worker {
    // No inherited flags: the worker is plain JavaScript and needs no loader (and --input-type would break it).
    const workerData: ScanWorkerData = { limits: this.limits };
    const worker = new Worker(new URL('./scanWorker.mjs', import.meta.url), { workerData, execArgv: [] });
    worker.unref();
    worker.on('message', (reply: Reply) => this.onReply(reply));
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(worker, error);
    };
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`skill scan worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Reject what `worker` was doing. Requests belong to one worker at a time: the current one. */
  private failAll(worker: Worker, error: Error): void {
    if (this.worker !== undefined && this.worker !== worker) return;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.pending.clear();
  }

  private onReply(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    if (reply.kind === 'batch') {
      try {
        pending.onBatch?.(reply.folders);
      } catch (err) {
        pending.failure ??= err instanceof Error ? err : new Error(String(err));
      }
      return;
    }
    this.pending.delete(reply.id);
    clearTimeout(pending.timer);
    if (this.pending.size === 0) this.worker?.unref();
    if (pending.failure) pending.reject(pending.failure);
    else if (reply.kind === 'error') pending.reject(new Error(`skill scan failed: ${reply.message}`));
    else pending.resolve(reply);
  }
}
