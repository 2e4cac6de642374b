// Samples each running instance's /metrics every few seconds: resident memory and turns finished.
import type { Instance } from './instances.ts';

export interface MemorySample {
  instance: string;
  life: number;
  at: number;
  rssBytes: number;
  turns: number;
}

const SAMPLE_EVERY_MS = 500;

function metricSum(text: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}

export class MemorySampler {
  readonly samples: MemorySample[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly instances: Instance[]) {
    this.#timer = setInterval(() => void this.sample(), SAMPLE_EVERY_MS);
  }

  async sample(): Promise<void> {
    await Promise.all(
      this.instances.map(async (instance) => {
        const life = instance.current;
        if (!instance.running || life?.healthyAt === undefined) return;
        const text = await fetch(`${instance.baseUrl}/metrics`, { signal: AbortSignal.timeout(1_500) })
          .then((response) => (response.ok ? response.text() : ''))
          .catch(() => '');
        const rssBytes = metricSum(text, 'skillbot_process_resident_memory_bytes');
        if (rssBytes === undefined) return;
        this.samples.push({ instance: instance.name, life: life.n, at: Date.now(), rssBytes, turns: metricSum(text, 'skillbot_turns_total') ?? 0 });
      }),
    );
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
