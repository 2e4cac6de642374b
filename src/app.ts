import Anthropic from '@anthropic-ai/sdk';
import { type Config, worldSettings } from './config.ts';
import { Dispatcher } from './agent/dispatcher.ts';
import { Engine } from './agent/engine.ts';
import type { RetryPolicy } from './agent/modelCall.ts';
import type { DurableQueueOptions } from './chats/durableQueue.ts';
import { createHistory } from './chats/history.ts';
import { TurnQueue } from './chats/turnQueue.ts';
import { createExecutor } from './exec/executor.ts';
import { ApprovalRuntime } from './hitl/approvals.ts';
import { type AuditLog, createAuditLog } from './hitl/audit.ts';
import { createGrants } from './hitl/grants.ts';
import { isInstanceAlive } from './hitl/instanceLiveness.ts';
import { createStoreApprovalBus } from './hitl/storeApprovalBus.ts';
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
  engine: Engine;
  /** Durable entry for platform messages: queued in the store, answered by whichever instance holds the chat. */
  dispatcher: Dispatcher;
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

export async function createApp(config: Config, logger: Logger, options: AppOptions = {}): Promise<App> {
  const store = await createStore(config.storeUrl, { logger });
  const registry = await SkillRegistry.open({
    roots: config.skillsDirs,
    logger,
    catalogBudgetChars: config.agent.catalogBudgetChars,
    watch: options.watchSkills ?? true,
  });
  const metrics = new Metrics();
  const audit = countRuns(createAuditLog(store), metrics);
  const grants = createGrants(store, { ttlMs: config.agent.grantTtlMs });
  const approvals = new ApprovalRuntime({
    store,
    audit,
    logger,
    // Pub/sub through the store: a click on any instance reaches the turn waiting on another.
    bus: createStoreApprovalBus(store),
    approversFor: (worldId) => worldSettings(config, worldId).approvers,
  });
  approvals.on('hitl-option-resolved', (record) => metrics.approvals.inc({ outcome: record.outcome ?? 'unknown' }));
  await approvals.start();
  const client = new Anthropic({
    // Without a key (a local proxy, or a test server) a placeholder, never the SDK's own credential lookup.
    apiKey: config.anthropic.apiKey ?? 'none',
    baseURL: config.anthropic.baseUrl ?? null,
    // One retry policy, in src/agent/modelCall.ts.
    maxRetries: 0,
  });
  const engine = new Engine({
    config,
    client,
    store,
    registry,
    history: createHistory(store, { budgetTokens: config.agent.historyTokens }),
    queue: new TurnQueue(),
    metrics,
    executor: createExecutor({ timeoutMs: config.scriptTimeoutMs, logger }),
    approvals,
    grants,
    audit,
    scriptTimeoutMs: config.scriptTimeoutMs,
    logger,
    retry: options.retry,
  });
  const dispatcher = new Dispatcher(
    engine,
    store,
    {
      store,
      instanceId: approvals.instanceId,
      isAlive: (id) => isInstanceAlive(store, id),
      // A claimant's liveness lapses within this; beyond it, it is gone.
      waitMs: approvals.instanceTtlMs,
    },
    logger,
    options.queue,
  );
  return {
    config,
    logger,
    store,
    registry,
    approvals,
    engine,
    dispatcher,
    metrics,
    async close() {
      // Turns still running get a moment, then their chats are handed over (their messages stay queued).
      await dispatcher.stop(2_000);
      // Shared store: questions still open stay pending for the instance that re-runs their turns. Alone, no
      // one else will: they end now, and their messages say so.
      await approvals.close({ handOver: store.kind === 'redis' });
      await registry.close();
      await store.close();
    },
  };
}
