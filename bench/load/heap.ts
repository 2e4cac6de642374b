// Heap after a forced collection, read from outside through each instance's inspector (started with
// --inspect on loopback): no product code knows about it. Every `every` answered turns the sampler collects
// garbage in each running instance and reads process.memoryUsage(), so growth that a quiet moment would give
// back is not mistaken for a leak, and a leak is not hidden by RSS the allocator keeps.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { Instance } from './instances.ts';

export interface HeapSample {
  instance: string;
  life: number;
  /** Turns this life had finished (skillbot_turns_total). */
  turns: number;
  /** Turns answered across the run when the sample was taken. */
  answered: number;
  heapUsedBytes: number;
  /** Memory outside the JS heap that JS objects hold (Buffers among it). */
  externalBytes: number;
  rssBytes: number;
  at: number;
}

type InspectorEvent = { method?: string; params?: { chunk?: string } };

interface Inspector {
  call(method: string, params?: object): Promise<unknown>;
  /** Notifications (messages without an id), such as heap snapshot chunks. */
  listeners: Set<(message: InspectorEvent) => void>;
  close(): void;
}

async function connect(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(2_000) })).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Set<(message: InspectorEvent) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string };
    if (message.id !== undefined) {
      const entry = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) entry?.reject(new Error(message.error.message));
      else entry?.resolve(message.result);
    } else for (const listener of listeners) listener(message);
  });
  socket.on('close', () => {
    for (const entry of waiting.values()) entry.reject(new Error('inspector closed'));
    waiting.clear();
  });
  return {
    listeners,
    call(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}

async function memoryAfterGc(inspector: Inspector): Promise<{ heapUsed: number; external: number; rss: number }> {
  await inspector.call('HeapProfiler.collectGarbage');
  // A second pass frees what the first one's finalizers released.
  await inspector.call('HeapProfiler.collectGarbage');
  const result = (await inspector.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
  return JSON.parse(result.result.value) as { heapUsed: number; external: number; rss: number };
}

/** Writes a heap snapshot of the instance (Chrome DevTools format) to `path`: for diffing two moments of a run. */
async function snapshot(inspector: Inspector, path: string): Promise<void> {
  const chunks: string[] = [];
  const listener = (message: InspectorEvent) => {
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(message.params?.chunk ?? '');
  };
  inspector.listeners.add(listener);
  await inspector.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  inspector.listeners.delete(listener);
  await writeFile(path, chunks.join(''));
}

function metric(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  return total;
}

export class HeapSampler {
  readonly samples: HeapSample[] = [];
  #nextAt: number;
  #busy = false;

  constructor(
    private readonly instances: Instance[],
    private readonly every: number,
    /** Where heap snapshots go; none are taken when undefined. */
    private readonly snapshotDir: string | undefined,
  ) {
    this.#nextAt = every;
  }

  /** Called as answers arrive: samples once each time the run crosses another `every` answered turns. */
  onAnswered(answered: number): void {
    if (answered < this.#nextAt || this.#busy) return;
    this.#nextAt = (Math.floor(answered / this.every) + 1) * this.every;
    this.#busy = true;
    void this.sample(answered).finally(() => {
      this.#busy = false;
    });
  }

  async sample(answered: number): Promise<void> {
    await Promise.all(
      this.instances.map(async (instance) => {
        const life = instance.current;
        if (!instance.running || life?.healthyAt === undefined || instance.inspectPort === undefined) return;
        let inspector: Inspector | undefined;
        try {
          inspector = await connect(instance.inspectPort);
          const memory = await memoryAfterGc(inspector);
          const metrics = await fetch(`${instance.baseUrl}/metrics`, { signal: AbortSignal.timeout(2_000) }).then((response) => response.text());
          const sample = { instance: instance.name, life: life.n, turns: metric(metrics, 'skillbot_turns_total'), answered, heapUsedBytes: memory.heapUsed, externalBytes: memory.external, rssBytes: memory.rss, at: Date.now() };
          this.samples.push(sample);
          console.error(`  heap ${instance.name}#${life.n} after ${sample.turns} turns (${answered} answered in all): heap used after GC ${mib(sample.heapUsedBytes)} MiB, external ${mib(sample.externalBytes)} MiB, RSS ${mib(sample.rssBytes)} MiB`);
          if (this.snapshotDir) await snapshot(inspector, join(this.snapshotDir, `${instance.name}-life${life.n}-${answered}.heapsnapshot`));
        } catch (error) {
          console.error(`  heap ${instance.name}#${life.n}: not sampled (${error instanceof Error ? error.message : String(error)})`);
        } finally {
          inspector?.close();
        }
      }),
    );
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export interface HeapLife {
  label: string;
  samples: number;
  /** The first sample after warm-up, and the last. */
  warmHeapMiB: number;
  endHeapMiB: number;
  warmRssMiB: number;
  endRssMiB: number;
  heapGrowth: number;
  rssGrowth: number;
  /** Undefined when the life had too few samples to judge. */
  flat: boolean | undefined;
}

const HEAP_WITHIN = 0.1;
const RSS_WITHIN = 0.2;

/** Per process life: heap after GC and RSS at the first sample after warm-up against the last. */
export function heapByLife(samples: HeapSample[], lives: Array<{ instance: string; n: number }>): HeapLife[] {
  return lives.map((life) => {
    const mine = samples.filter((sample) => sample.instance === life.instance && sample.life === life.n);
    // The first sample is warm-up (caches filling, JIT); the second is the baseline.
    const warm = mine[1];
    const end = mine.at(-1);
    const heapGrowth = warm && end ? end.heapUsedBytes / warm.heapUsedBytes : 1;
    const rssGrowth = warm && end ? end.rssBytes / warm.rssBytes : 1;
    return {
      label: `${life.instance}#${life.n}`,
      samples: mine.length,
      warmHeapMiB: (warm?.heapUsedBytes ?? 0) / 1024 / 1024,
      endHeapMiB: (end?.heapUsedBytes ?? 0) / 1024 / 1024,
      warmRssMiB: (warm?.rssBytes ?? 0) / 1024 / 1024,
      endRssMiB: (end?.rssBytes ?? 0) / 1024 / 1024,
      heapGrowth,
      rssGrowth,
      flat: mine.length >= 3 ? heapGrowth <= 1 + HEAP_WITHIN && rssGrowth <= 1 + RSS_WITHIN : undefined,
    };
  });
}
