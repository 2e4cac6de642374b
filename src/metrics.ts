/**
 * Prometheus counters and histograms, served at GET /metrics. A few dozen lines instead of a dependency:
 * the text format is simple and we only need labelled counters and fixed-bucket histograms.
 */
type Labels = Record<string, string>;

const labelKey = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((name) => `${name}="${String(labels[name]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');

export class Counter {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, value] of this.values) lines.push(`${this.name}${key ? `{${key}}` : ''} ${value}`);
    return lines.join('\n');
  }
}

export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: number[],
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    this.buckets.forEach((bound, index) => {
      if (value <= bound) this.counts[index] = (this.counts[index] ?? 0) + 1;
    });
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    this.buckets.forEach((bound, index) => lines.push(`${this.name}_bucket{le="${bound}"} ${this.counts[index] ?? 0}`));
    lines.push(`${this.name}_bucket{le="+Inf"} ${this.count}`, `${this.name}_sum ${this.sum}`, `${this.name}_count ${this.count}`);
    return lines.join('\n');
  }
}

/** The process's resident memory, read at scrape time (for watching that memory stays flat). */
function residentMemory(): string {
  const name = 'skillbot_process_resident_memory_bytes';
  return `# HELP ${name} Resident memory of this process.\n# TYPE ${name} gauge\n${name} ${process.memoryUsage().rss}\n`;
}

const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The bot's metrics. One instance per process, passed to whoever records. */
export class Metrics {
  readonly turns = new Counter('skillbot_turns_total', 'Turns finished, by status.');
  readonly turnSeconds = new Histogram('skillbot_turn_duration_seconds', 'Wall time of a turn.', SECONDS);
  readonly modelSeconds = new Histogram('skillbot_model_duration_seconds', 'Time a turn spent waiting on the model.', SECONDS);
  readonly scriptRuns = new Counter('skillbot_script_runs_total', 'Runs of skill code, by status.');
  readonly approvals = new Counter('skillbot_approvals_total', 'Approvals resolved, by outcome.');
  readonly dedupeHits = new Counter('skillbot_dedupe_hits_total', 'Platform deliveries dropped as duplicates, by platform.');
  readonly cacheReadTokens = new Counter('skillbot_cache_read_tokens_total', 'Prompt tokens read from the cache.');
  readonly cacheCreationTokens = new Counter('skillbot_cache_creation_tokens_total', 'Prompt tokens written to the cache.');

  render(): string {
    return `${[
      this.turns,
      this.turnSeconds,
      this.modelSeconds,
      this.scriptRuns,
      this.approvals,
      this.dedupeHits,
      this.cacheReadTokens,
      this.cacheCreationTokens,
    ]
      .map((metric) => metric.render())
      .join('\n')}\n${residentMemory()}`;
  }
}
