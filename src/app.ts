import { type Config, worldSettings } from './config/config.ts';
import { Engine, type TurnOutcome } from './agent/engine.ts';
import type { RetryPolicy } from './agent/modelCall.ts';
import type { Dispatcher } from './chats/dispatcher.ts';
import type { DurableQueueOptions } from './chats/durableQueue.ts';
import { createHistory } from './chats/history.ts';
import { TurnStops } from './chats/stop.ts';
import { auditIgnoredIndex } from './install/ignoredIndex.ts';
import { indexSeal } from './install/indexSeal.ts';
import { chooseWorkspaceRoot } from './workspace/workspaceRoot.ts';
import type { HashFolder } from './exec/types.ts';
import {
  type ApprovalRuntime,
  type AuditLog,
  createRecordSealer,
  declineOpenApprovals,
  type Grants,
  isPendingApproval,
  routineGrantChat,
} from './approvals/index.ts';
import { loadStateKey } from './keys/stateKey.ts';
import { OUR_TOOL_NAMES } from './agent/tools/index.ts';
import { TokenBudgets } from './chats/tokenBudget.ts';
import { newInstanceId } from './chats/instanceLiveness.ts';
import type { Logger } from './ops/log.ts';
import { Metrics } from './ops/metrics.ts';
import { createModelClient, describeProvider } from './model/modelClient.ts';
import { SkillRegistry } from './skills/registry.ts';
import type { Skill } from './skills/types.ts';
import { countedStore } from './store/countedStore.ts';
import { InstalledSkills, Installer, stagingLifetimeMs, sweepLeftovers } from './install/index.ts';
import { createStore } from './store/createStore.ts';
import { type Mcp, mcpFromConfig } from './mcp/fromConfig.ts';
import type { Store } from './store/types.ts';
import { RoutineBook } from './routines/book.ts';
import { schedulerClock } from './routines/clock.ts';
import { RoutineRules } from './routines/routines.ts';
import type { RoutineService } from './routines/service.ts';
import { Access } from './access/access.ts';
import { createCore, type Core } from './platform/core.ts';
import { openApprovals, openSandboxing, type Sandboxing } from './appParts.ts';
import { queueTurns } from './appTurns.ts';

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
  /** This process among the instances sharing the store (on every log line of `skillbot start`). */
  instanceId: string;
  /** MCP servers' connections and tools (src/mcp); absent when none is configured. */
  mcp?: Mcp<Skill>;
  /** Installing skills from chats and the CLI (fetch, scan, review card, pin in the store). */
  installer: Installer;
  /** The installed skills this instance serves, kept in line with the store. */
  installed: InstalledSkills;
  /** Routines, follow-ups and webhooks (src/routines): `skillbot start` starts its scheduler once the platforms run. */
  routines: RoutineService;
  /** Who may use the bot, per-person limits, bots let in on purpose (src/access): adapters ask before accepting. */
  access: Access;
  /** What the platforms are given (src/platform/core.ts): narrow delegations to the parts above. */
  core: Core;
  /**
   * The first step of a stop on SIGTERM: no new turns; running ones get until `deadlineMs` to finish (no longer
   * than needed when each waits on a person), then end unposted, their messages kept queued for the restart (or
   * another instance); their open questions are closed as expired with their cards saying so (alone) or left
   * for the instance that re-runs them (shared store). close() follows, once the platforms are stopped.
   */
  shutdown(deadlineMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Watch skill roots for changes (the bot does; one-shot commands do not). */
  watchSkills?: boolean;
  retry?: RetryPolicy;
  queue?: DurableQueueOptions;
  /** This process's id among instances (the CLI makes it first, to put it on every log line). */
  instanceId?: string;
  /** Vertex only: a google-auth-library AuthClient instead of Application Default Credentials (tests). */
  vertexAuthClient?: unknown;
}

export async function createApp(config: Config, baseLogger: Logger, options: AppOptions = {}): Promise<App> {
  // The CLI's logger already carries the id it made; anyone else's gets it here.
  const instanceId = options.instanceId ?? newInstanceId();
  const logger = options.instanceId === undefined ? baseLogger.child({ instanceId }) : baseLogger;
  const workspaceRoot = chooseWorkspaceRoot(config, logger);
  // Before the store: a key that cannot be made is a config problem, reported before anything starts.
  const stateKey = loadStateKey(config);
  if (stateKey.warning !== undefined) logger.warn({ stateKeyFile: stateKey.file }, stateKey.warning);
  // Before the store: a folder that is not the bot's own is a config problem, reported before anything starts.
  await InstalledSkills.prepare(config.install.dir);
  const swept = await sweepLeftovers(config.install.dir, stagingLifetimeMs(config));
  if (swept.length > 0) logger.info({ swept }, 'removed what interrupted installs left behind');
  const metrics = new Metrics();
  const store = countedStore(await createStore(config.storeUrl, { logger, instanceId }), (operation, namespace) => metrics.storeOperations.inc({ operation, namespace }));
  const base = { config, logger, store, metrics };
  const registry = await SkillRegistry.open({
    // Installed skills last: a skill an operator put on disk wins a name clash (the scanner warns of one first).
    roots: [...config.skillsDirs, config.install.dir],
    logger,
    catalogBudgetChars: config.agent.catalogBudgetChars,
    watch: options.watchSkills ?? true,
  });
  const { audit, grants, approvals } = await openApprovals(base, createRecordSealer(stateKey.secret), instanceId);
  const hashFolder: HashFolder = (dir) => registry.hashFolder(dir);
  const installSeal = indexSeal(stateKey.secret);
  const installed = new InstalledSkills({ store, dir: config.install.dir, hashFolder, reload: () => registry.reload(), logger, seal: installSeal, onIgnored: (revision, why) => auditIgnoredIndex(audit, revision, why) });
  await installed.start();
  const stops = new TurnStops(store, {
    approversFor: (worldId) => worldSettings(config, worldId).approvers,
    logger,
    // The stopper may answer the turn's question (same rule): it closes as `no`, by them.
    onStop: async (turn, by) => void (await declineOpenApprovals(store, approvals, turn, by)),
  });
  await stops.start();
  // One retry policy, in src/agent/modelCall.ts: the client's own is off.
  const client = await createModelClient(config.anthropic, { maxRetries: 0, vertexAuthClient: options.vertexAuthClient });
  logger.info({ provider: config.anthropic.provider, model: config.model }, `model through ${describeProvider(config.anthropic)}`);
  const sandboxing = await openSandboxing(base, hashFolder, stateKey.secret, workspaceRoot);
  const mcp = mcpFromConfig(config, { executor: sandboxing.executor, approvals, grants, audit, logger, store, stateKey: stateKey.secret, ourToolNames: OUR_TOOL_NAMES, indexFolder: (dir) => registry.indexFolder(dir) });
  const routineParts = routineRules(base, instanceId, grants);
  const budgets = new TokenBudgets(store);
  const engine = buildEngine({ ...base, registry, stops, client, approvals, grants, audit, hashFolder, sandboxing, installed, options, ...(mcp === undefined ? {} : { mcp }), followupRules: routineParts.rules, budgets });
  const installer = new Installer({ config, store, registry, approvals, audit, installed, executor: sandboxing.executor, hashFolder, logger, seal: installSeal });
  const access = new Access({ config, store, logger, metrics });
  await access.start();
  const { dispatcher, routines } = queueTurns(base, { engine, budgets, access, approvals, audit, instanceId, stateKey: stateKey.secret, routineParts, queue: options.queue });
  // Calls running as MCP tasks: polled here (one instance at a time each); their ends are queued as turns.
  mcp?.tasks.start(instanceId, (message, keys) => dispatcher.accept(message, keys), (platform) => dispatcher.port(platform));
  metrics.watch({
    backlog: () => dispatcher.backlog(),
    // The approvals namespace is listed through its index: the cost is the questions kept, not the store's size.
    pendingApprovals: async () => (await store.list<unknown>('approvals', '')).filter((row) => isPendingApproval(row.value)).length,
    chatsLeasedHere: () => dispatcher.leasedChats,
    runningScripts: sandboxing.scripts.running,
  });
  const parts = { config, logger, store, registry, approvals, grants, engine, dispatcher, stops, metrics, instanceId, ...(mcp === undefined ? {} : { mcp }), installer, installed, routines, access };
  const closeRest = async (handOver: boolean) => {
    await routines.stop();
    mcp?.tasks.stop();
    await approvals.close({ handOver });
    await stops.close();
    await access.close();
    sandboxing.stopSweeping();
    await mcp?.close();
    await installed.close();
    await registry.close();
    sandboxing.executor.close();
    await store.close();
  };
  return {
    ...parts,
    core: createCore(parts),
    shutdown: (deadlineMs) => shutdown(parts, deadlineMs),
    async close() {
      // Turns still running get a moment, then their chats are handed over (their messages stay queued).
      await dispatcher.stop(2_000);
      // Shared store: questions still open stay pending for the instance that re-runs their turns. Alone, no
      // one else will: they end now, and their messages say so.
      await closeRest(store.kind === 'redis');
    },
  };
}

/** The turn's engine over the parts createApp built. */
function buildEngine(parts: {
  config: Config; logger: Logger; store: Store; metrics: Metrics; registry: SkillRegistry; stops: TurnStops; client: Awaited<ReturnType<typeof createModelClient>>;
  approvals: ApprovalRuntime; grants: Grants; audit: AuditLog; hashFolder: HashFolder; sandboxing: Sandboxing; installed: InstalledSkills;
  options: AppOptions; mcp?: Mcp<Skill>; followupRules: RoutineRules; budgets: TokenBudgets;
}): Engine {
  const { config, store, options, installed } = parts;
  return new Engine({
    config,
    followups: parts.followupRules,
    budgets: parts.budgets,
    ...(parts.mcp === undefined ? {} : { mcp: parts.mcp.tools, serverSkills: parts.mcp.skills }),
    client: parts.client,
    store,
    registry: parts.registry,
    history: createHistory(store, { budgetTokens: config.agent.historyTokens }),
    stops: parts.stops,
    metrics: parts.metrics,
    executor: parts.sandboxing.scripts.executor,
    hashFolder: parts.hashFolder,
    approvals: parts.approvals,
    grants: parts.grants,
    audit: parts.audit,
    scriptTimeoutMs: config.scriptTimeoutMs,
    logger: parts.logger,
    retry: options.retry,
    workspaces: parts.sandboxing.workspaces,
    settingsFor: (worldId) => ({ ...worldSettings(config, worldId), notHere: installed.hiddenIn(worldId) }),
  });
}

/** Routines' book, clock and rules: the engine's follow-up tool needs the rules before the service exists. */
function routineRules(base: { config: Config; logger: Logger; store: Store }, instanceId: string, grants: Grants) {
  const { config, logger, store } = base;
  const book = new RoutineBook(store);
  const clock = schedulerClock(config.routines.clock);
  const rules = new RoutineRules({
    book,
    clock,
    admins: config.admins,
    timezoneOf: (worldId) => worldSettings(config, worldId).timezone,
    followupsPerChat: config.routines.followupsPerChat,
    logger,
    forgetGrants: (id) => grants.revoke({ chatId: routineGrantChat(id) }),
  });
  return { book, clock, rules, instanceId };
}

/**
 * The first step of a stop on SIGTERM (App.shutdown): no new turns, running ones get until the deadline, then
 * their questions are handed over (shared store) or closed as expired (alone).
 */
async function shutdown(parts: Pick<App, 'routines' | 'store' | 'dispatcher' | 'approvals' | 'stops' | 'logger' | 'mcp'>, deadlineMs: number): Promise<void> {
  const { routines, store, dispatcher, approvals, stops, logger } = parts;
  await routines.stop();
  // Its tasks' leases lapse: another instance (or this one after its restart) polls them on.
  parts.mcp?.tasks.stop();
  // Shared store: other instances may run (they, or this one after its restart, take the chats over).
  const shared = store.kind === 'redis';
  await dispatcher.stop(deadlineMs, {
    // A turn waiting on a person cannot finish now: stop waiting as soon as every running turn is one.
    settled: () => {
      const waiting = new Set(approvals.awaitedHere().map((record) => record.chatId));
      return dispatcher.runningChats.every((chatId) => waiting.has(chatId));
    },
    leave: async () => {
      stops.abortAll(SHUTDOWN_BY);
      // Shared store: their questions stay pending, and the instance that re-runs a turn resumes its question.
      // Alone: they end now as expired, while the platforms can still update their cards ("the bot
      // restarted or stopped"), and the re-run after the restart asks again.
      await approvals.close({ handOver: shared });
    },
  });
  const left = dispatcher.leftAtStop;
  if (left > 0) {
    logger.info(
      { unfinished: left },
      shared
        ? 'unfinished turns left queued: another instance, or this one after its restart, answers them'
        : 'unfinished turns left queued: they are answered after the restart',
    );
  }
}

/** Who ends the turns still running at a shutdown (a system name: nothing is posted for it). */
const SHUTDOWN_BY = 'system:shutdown';
