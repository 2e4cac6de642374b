import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const FAST_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** Where the gauges read the state of the system at scrape time. One that fails (the store is away) keeps its last value. */
export interface MetricSources {
  /** Messages waiting in inboxes over every instance, and the arrival (epoch ms) of the oldest. */
  backlog(): Promise<{ waiting: number; oldestAt: number | undefined }>;
  /** Approval questions open (every instance). */
  pendingApprovals(): Promise<number>;
  /** Chats whose lease this instance holds. */
  chatsLeasedHere(): number;
  /** Skill processes running in this instance. */
  runningScripts(): number;
}

/**
 * The bot's Prometheus metrics, served at GET /metrics: prom-client on a registry of this app's own (never the
 * global default registry, so two apps in one process, as in tests, do not share or clash), with its default
 * process metrics (event-loop lag, heap, GC, handles) and gauges read at scrape time from `watch`'s sources.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly turns = new Counter({ name: 'skillbot_turns_total', help: 'Turns finished, by status.', labelNames: ['status'], registers: [this.registry] });
  readonly turnSeconds = new Histogram({
    name: 'skillbot_turn_duration_seconds',
    help: 'Wall time of a turn, by status.',
    labelNames: ['status'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly modelSeconds = new Histogram({
    name: 'skillbot_model_duration_seconds',
    help: 'Time a turn spent waiting on the model.',
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly acceptSeconds = new Histogram({
    name: 'skillbot_accept_duration_seconds',
    help: 'Time to accept one platform delivery (dedupe and queue in the store), by platform and outcome.',
    labelNames: ['platform', 'outcome'],
    buckets: FAST_SECONDS,
    registers: [this.registry],
  });
  readonly storeOperations = new Counter({
    name: 'skillbot_store_operations_total',
    help: 'Store operations (each one round trip, a few for claims and inbox moves), by operation and namespace.',
    labelNames: ['operation', 'namespace'],
    registers: [this.registry],
  });
  readonly scriptRuns = new Counter({
    name: 'skillbot_script_runs_total',
    help: 'Runs of skill code (scripts, preflight commands, hooks), by skill and status.',
    labelNames: ['skill', 'status'],
    registers: [this.registry],
  });
  readonly approvals = new Counter({
    name: 'skillbot_approvals_total',
    help: 'Approval questions resolved, by skill and outcome.',
    labelNames: ['skill', 'outcome'],
    registers: [this.registry],
  });
  readonly skillActivations = new Counter({
    name: 'skillbot_skill_activations_total',
    help: 'Skills activated in a chat (loaded by the model, named with /skill, or triggered), by skill.',
    labelNames: ['skill'],
    registers: [this.registry],
  });
  /** Spend: every token the model was sent or wrote, by world, model and kind (input, output, cache_read, cache_write). */
  readonly tokens = new Counter({
    name: 'skillbot_tokens_total',
    help: 'Model tokens by world, model and kind: input, output, cache_read, cache_write.',
    labelNames: ['world', 'model', 'kind'],
    registers: [this.registry],
  });
  readonly budgetRefusals = new Counter({
    name: 'skillbot_budget_refusals_total',
    help: 'Messages not answered because their world spent its daily token budget, by world.',
    labelNames: ['world'],
    registers: [this.registry],
  });
  readonly accessRefusals = new Counter({
    name: 'skillbot_access_refusals_total',
    help: 'Messages, clicks and commands refused by a world\'s `access` rules, by world and reason.',
    labelNames: ['world', 'reason'],
    registers: [this.registry],
  });
  readonly limitRefusals = new Counter({
    name: 'skillbot_limit_refusals_total',
    help: 'Messages not answered because their author reached a per-person limit, by world and limit (turns, tokens).',
    labelNames: ['world', 'limit'],
    registers: [this.registry],
  });
  readonly botTurns = new Counter({
    name: 'skillbot_bot_messages_total',
    help: 'Messages of listed bots, by world and outcome (allowed, cooldown).',
    labelNames: ['world', 'outcome'],
    registers: [this.registry],
  });
  readonly personTurns = new Counter({
    name: 'skillbot_person_turns_total',
    help: 'Messages admitted as turns, by world.',
    labelNames: ['world'],
    registers: [this.registry],
  });
  readonly dedupeHits = new Counter({
    name: 'skillbot_dedupe_hits_total',
    help: 'Platform deliveries dropped as duplicates, by platform.',
    labelNames: ['platform'],
    registers: [this.registry],
  });
  readonly routineRuns = new Counter({
    name: 'skillbot_routine_runs_total',
    help: 'Runs of routines, follow-ups and webhook deliveries started (or skipped, refused), by world, kind and outcome.',
    labelNames: ['world', 'kind', 'outcome'],
    registers: [this.registry],
  });
  // Kept beside skillbot_tokens_total for dashboards made before it (the same counts, without labels).
  readonly cacheReadTokens = new Counter({ name: 'skillbot_cache_read_tokens_total', help: 'Prompt tokens read from the cache.', registers: [this.registry] });
  readonly cacheCreationTokens = new Counter({
    name: 'skillbot_cache_creation_tokens_total',
    help: 'Prompt tokens written to the cache.',
    registers: [this.registry],
  });
  #sources: MetricSources | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    new Gauge({
      name: 'skillbot_process_resident_memory_bytes',
      help: 'Resident memory of this process.',
      registers,
      collect() {
        this.set(process.memoryUsage().rss);
      },
    });
    const sources = () => this.#sources;
    new Gauge({
      name: 'skillbot_inbox_waiting_messages',
      help: 'Messages accepted and not yet answered, over every instance (the backlog).',
      registers,
      async collect() {
        const backlog = await sources()?.backlog().catch(() => undefined);
        if (backlog) this.set(backlog.waiting);
      },
    });
    new Gauge({
      name: 'skillbot_inbox_oldest_message_age_seconds',
      help: 'How long the oldest waiting message has waited (0 when none waits).',
      registers,
      async collect() {
        const backlog = await sources()?.backlog().catch(() => undefined);
        if (backlog) this.set(backlog.oldestAt === undefined ? 0 : Math.max(0, (Date.now() - backlog.oldestAt) / 1000));
      },
    });
    new Gauge({
      name: 'skillbot_approvals_pending',
      help: 'Approval questions waiting for an answer, over every instance.',
      registers,
      async collect() {
        const pending = await sources()?.pendingApprovals().catch(() => undefined);
        if (pending !== undefined) this.set(pending);
      },
    });
    new Gauge({
      name: 'skillbot_chats_leased',
      help: 'Chats this instance holds the lease of (is answering).',
      registers,
      collect() {
        const leased = sources()?.chatsLeasedHere();
        if (leased !== undefined) this.set(leased);
      },
    });
    new Gauge({
      name: 'skillbot_script_processes_running',
      help: 'Skill processes running in this instance.',
      registers,
      collect() {
        const running = sources()?.runningScripts();
        if (running !== undefined) this.set(running);
      },
    });
  }

  /** Counts one turn's tokens against its world and model. */
  countTokens(world: string, model: string, usage: { input: number; output: number; cacheRead: number; cacheCreation: number }): void {
    const kinds: Array<[string, number]> = [
      ['input', usage.input],
      ['output', usage.output],
      ['cache_read', usage.cacheRead],
      ['cache_write', usage.cacheCreation],
    ];
    for (const [kind, count] of kinds) if (count > 0) this.tokens.inc({ world, model, kind }, count);
  }

  /** Where the gauges read the system's state (set once the parts they read exist). */
  watch(sources: MetricSources): void {
    this.#sources = sources;
  }

  /** The text format, for GET /metrics. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A counter's current value for these labels (0 when never counted). */
  async value(counter: Counter<string>, labels: Record<string, string> = {}): Promise<number> {
    const wanted = Object.entries(labels);
    const { values } = await counter.get();
    const found = values.find(
      (entry) => Object.keys(entry.labels).length === wanted.length && wanted.every(([name, value]) => entry.labels[name] === value),
    );
    return found?.value ?? 0;
  }
}
