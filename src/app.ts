import Anthropic from '@anthropic-ai/sdk';
import { type Config, worldSettings } from './config.ts';
import { Engine, type TurnOutcome } from './agent/engine.ts';
import type { RetryPolicy } from './agent/modelCall.ts';
import { Dispatcher } from './chats/dispatcher.ts';
import type { DurableQueueOptions } from './chats/durableQueue.ts';
import { createHistory } from './chats/history.ts';
import { TurnStops } from './chats/stop.ts';
import { executorFromConfig, reportSandbox } from './exec/fromConfig.ts';
import type { Executor, HashFolder } from './exec/types.ts';
import { isPendingApproval } from './approvals/index.ts';
import { bindToApprovedContent } from './approvals/index.ts';
import { ApprovalRuntime } from './approvals/index.ts';
import { type AuditLog, createAuditLog } from './approvals/index.ts';
import { createGrants, type Grants } from './approvals/index.ts';
import { createRecordSealer } from './approvals/index.ts';
import { loadStateKey } from './approvals/index.ts';
import { isInstanceAlive } from './chats/instanceLiveness.ts';
import { createStoreApprovalBus } from './approvals/index.ts';
import { declineOpenApprovals } from './approvals/index.ts';
import type { Logger } from './log.ts';
import { Metrics } from './metrics.ts';
import { SkillRegistry } from './skills/registry.ts';
import { createStore } from './store/createStore.ts';
import type { Store } from './store/types.ts';

/** Everything one skillbot process runs on, built from the config, with one close(). */
export interface App {
  config: Config;
  logger: Logger;
  store: Store;
  registry: SkillRegistry;
  approvals: ApprovalRuntime;
  /** Session grants (sealed with the state key): what `skillbot grants` and Slack's App Home list and revoke. */
  grants: Grants;
  engine: Engine;
  /**
   * The one entry for messages (platforms and the terminal): queued in the store, answered by whichever instance
   * holds the chat; `submit` waits for a turn's outcome.
   */
  dispatcher: Dispatcher<TurnOutcome>;
  /** Stopping a running turn, on whichever instance runs it. */
  stops: TurnStops;
  metrics: Metrics;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Watch skill roots for changes (the bot does; one-shot commands do not). */
  watchSkills?: boolean;
  retry?: RetryPolicy;
  queue?: DurableQueueOptions;
}

/** Every run of skill code is audited, in one place: count them there too (script runs by status). */
function countRuns(audit: AuditLog, metrics: Metrics): AuditLog {
  return {
    ...audit,
    async record(entry) {
      await audit.record(entry);
      if (entry.kind === 'run') metrics.scriptRuns.inc({ status: entry.outcome });
    },
  };
}

/** Counts the skill processes running now (a gauge), around the one guarded way to run them. */
function countRunning(executor: Executor): { executor: Executor; running: () => number } {
  let running = 0;
  return {
    running: () => running,
    executor: {
      ...executor,
      async run(request) {
        running++;
        try {
          return await executor.run(request);
        } finally {
          running--;
        }
      },
    },
  };
}

export async function createApp(config: Config, logger: Logger, options: AppOptions = {}): Promise<App> {
  // Before the store: a key that cannot be made is a config problem, reported before anything starts.
  const stateKey = loadStateKey(config);
  if (stateKey.warning !== undefined) logger.warn({ stateKeyFile: stateKey.file }, stateKey.warning);
  const sealer = createRecordSealer(stateKey.secret);
  const store = await createStore(config.storeUrl, { logger });
  const registry = await SkillRegistry.open({
    roots: config.skillsDirs,
    logger,
    catalogBudgetChars: config.agent.catalogBudgetChars,
    watch: options.watchSkills ?? true,
  });
  const metrics = new Metrics();
  const audit = countRuns(createAuditLog(store), metrics);
  const grants = createGrants(store, {
    ttlMs: config.agent.grantTtlMs,
    sealer,
    // A row the bot did not write (a forged grant): ignored, and on the operator's record.
    async onRejected(key) {
      logger.warn({ chatId: key.chatId, skill: key.skillId, requester: key.requesterId }, 'ignored a session grant that fails its integrity check');
      await audit.record({
        at: Date.now(),
        kind: 'integrity',
        worldId: key.worldId,
        chatId: key.chatId,
        skillId: key.skillId,
        skillHash: key.skillHash,
        items: [],
        requestedBy: key.requesterId,
        outcome: 'ignored',
        reason: `session grant ${key.id} fails its integrity check (not written by the bot); ignored`,
      });
    },
  });
  const approvals = new ApprovalRuntime({
    store,
    audit,
    logger,
    // Pub/sub through the store: a click on any instance reaches the turn waiting on another.
    bus: createStoreApprovalBus(store),
    approversFor: (worldId) => worldSettings(config, worldId).approvers,
    sealer,
  });
  approvals.on('hitl-option-resolved', (record) => metrics.approvals.inc({ outcome: record.outcome ?? 'unknown' }));
  await approvals.start();
  const hashFolder: HashFolder = (dir) => registry.hashFolder(dir);
  const stops = new TurnStops(store, {
    approversFor: (worldId) => worldSettings(config, worldId).approvers,
    logger,
    // The stopper may answer the turn's question (same rule): it closes as `no`, by them.
    onStop: async (turn, by) => void (await declineOpenApprovals(store, approvals, turn, by)),
  });
  await stops.start();
  const client = new Anthropic({
    // Without a key (a local proxy, or a test server) a placeholder, never the SDK's own credential lookup.
    apiKey: config.anthropic.apiKey ?? 'none',
    baseURL: config.anthropic.baseUrl ?? null,
    // One retry policy, in src/agent/modelCall.ts.
    maxRetries: 0,
  });
  const executor = executorFromConfig(config, logger, { hashFolder });
  reportSandbox(await executor.sandbox(), logger);
  // The executor runs a copy of the skill only when it hashes to the approved content (hashFolder); the
  // wrapper checks the folder before that too and names a change plainly for the model and the person.
  const scripts = countRunning(bindToApprovedContent(executor, hashFolder));
  const engine = new Engine({
    config,
    client,
    store,
    registry,
    history: createHistory(store, { budgetTokens: config.agent.historyTokens }),
    stops,
    metrics,
    executor: scripts.executor,
    hashFolder,
    approvals,
    grants,
    audit,
    scriptTimeoutMs: config.scriptTimeoutMs,
    logger,
    retry: options.retry,
  });
  const dispatcher = new Dispatcher<TurnOutcome>({
    store,
    runTurn: (message, sink, turnId, platform) => engine.runTurn(message, sink, turnId, platform),
    replies: {
      store,
      instanceId: approvals.instanceId,
      isAlive: (id) => isInstanceAlive(store, id),
    },
    logger,
    onAccepted: (platform, outcome, seconds) => {
      metrics.acceptSeconds.observe({ platform, outcome }, seconds);
      if (outcome === 'duplicate') metrics.dedupeHits.inc({ platform });
    },
    ...(options.queue ? { queue: options.queue } : {}),
  });
  metrics.watch({
    backlog: () => dispatcher.backlog(),
    // The approvals namespace is listed through its index: the cost is the questions kept, not the store's size.
    pendingApprovals: async () => (await store.list<unknown>('approvals', '')).filter((row) => isPendingApproval(row.value)).length,
    chatsLeasedHere: () => dispatcher.leasedChats,
    runningScripts: scripts.running,
  });
  return {
    config,
    logger,
    store,
    registry,
    approvals,
    grants,
    engine,
    dispatcher,
    stops,
    metrics,
    async close() {
      // Turns still running get a moment, then their chats are handed over (their messages stay queued).
      await dispatcher.stop(2_000);
      // Shared store: questions still open stay pending for the instance that re-runs their turns. Alone, no
      // one else will: they end now, and their messages say so.
      await approvals.close({ handOver: store.kind === 'redis' });
      await stops.close();
      await registry.close();
      await store.close();
    },
  };
}
