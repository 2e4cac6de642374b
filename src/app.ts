import { type Config, worldSettings } from './config/config.ts';
import { Engine, type TurnOutcome } from './agent/engine.ts';
import { OUR_TOOL_NAMES } from './agent/tools/index.ts';
import type { RetryPolicy } from './agent/modelCall.ts';
import { Dispatcher } from './chats/dispatcher.ts';
import type { DurableQueueOptions } from './chats/durableQueue.ts';
import { createHistory } from './chats/history.ts';
import { TurnStops } from './chats/stop.ts';
import { parseWorldId } from './chats/ids.ts';
import { executorFromConfig, reportSandbox } from './exec/fromConfig.ts';
import { ChatWorkspaces } from './workspace/chatWorkspaces.ts';
import { manifestSeal } from './workspace/manifestSeal.ts';
import { auditIgnoredIndex } from './install/ignoredIndex.ts';
import { indexSeal } from './install/indexSeal.ts';
import { chooseWorkspaceRoot } from './workspace/workspaceRoot.ts';
import type { Executor, HashFolder } from './exec/types.ts';
import {
  ApprovalRuntime,
  type AuditLog,
  bindToApprovedContent,
  createAuditLog,
  createGrants,
  createRecordSealer,
  createStoreApprovalBus,
  declineOpenApprovals,
  type Grants,
  isPendingApproval,
  logDecision,
  routineGrantChat,
} from './approvals/index.ts';
import { loadEgressCa } from './exec/egressCa.ts';
import { keyFolder, loadStateKey } from './keys/stateKey.ts';
import { isInstanceAlive, newInstanceId } from './chats/instanceLiveness.ts';
import type { Logger } from './ops/log.ts';
import { Metrics } from './ops/metrics.ts';
import { createModelClient, describeProvider } from './model/modelClient.ts';
import { TokenBudgets, totalTokens } from './chats/tokenBudget.ts';
import { SkillRegistry } from './skills/registry.ts';
import { countedStore } from './store/countedStore.ts';
import { InstalledSkills, Installer, stagingLifetimeMs, sweepLeftovers } from './install/index.ts';
import { createStore } from './store/createStore.ts';
import { type Mcp, mcpFromConfig } from './mcp/fromConfig.ts';
import type { Store } from './store/types.ts';
import { RoutineBook } from './routines/book.ts';
import { schedulerClock } from './routines/clock.ts';
import { RoutineRules } from './routines/routines.ts';
import { RoutineService } from './routines/service.ts';
import { Access } from './access/access.ts';
import { alertAdmins } from './access/budgetAlerts.ts';

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
  mcp?: Mcp;
  /** Installing skills from chats and the CLI (fetch, scan, review card, pin in the store). */
  installer: Installer;
  /** The installed skills this instance serves, kept in line with the store. */
  installed: InstalledSkills;
  /** Routines, follow-ups and webhooks (src/routines): `skillbot start` starts its scheduler once the platforms run. */
  routines: RoutineService;
  /** Who may use the bot, per-person limits, bots let in on purpose (src/access): adapters ask before accepting. */
  access: Access;
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

/** Every run of skill code is audited, in one place: count them there too (script runs by status). */
function countRuns(audit: AuditLog, metrics: Metrics): AuditLog {
  return {
    ...audit,
    async record(entry) {
      await audit.record(entry);
      if (entry.kind === 'run') metrics.scriptRuns.inc({ skill: entry.skillId, status: entry.outcome });
    },
  };
}

const WORKSPACE_SWEEP_MS = 12 * 60 * 60 * 1000;


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

export async function createApp(config: Config, baseLogger: Logger, options: AppOptions = {}): Promise<App> {
  // The CLI's logger already carries the id it made; anyone else's gets it here.
  const instanceId = options.instanceId ?? newInstanceId();
  const logger = options.instanceId === undefined ? baseLogger.child({ instanceId }) : baseLogger;
  const workspaceRoot = chooseWorkspaceRoot(config, logger);
  // Before the store: a key that cannot be made is a config problem, reported before anything starts.
  const stateKey = loadStateKey(config);
  if (stateKey.warning !== undefined) logger.warn({ stateKeyFile: stateKey.file }, stateKey.warning);
  const sealer = createRecordSealer(stateKey.secret);
  // Before the store: a folder that is not the bot's own is a config problem, reported before anything starts.
  await InstalledSkills.prepare(config.install.dir);
  const swept = await sweepLeftovers(config.install.dir, stagingLifetimeMs(config));
  if (swept.length > 0) logger.info({ swept }, 'removed what interrupted installs left behind');
  const metrics = new Metrics();
  const store = countedStore(await createStore(config.storeUrl, { logger, instanceId }), (operation, namespace) => metrics.storeOperations.inc({ operation, namespace }));
  const registry = await SkillRegistry.open({
    // Installed skills last: a skill an operator put on disk wins a name clash (the scanner warns of one first).
    roots: [...config.skillsDirs, config.install.dir],
    logger,
    catalogBudgetChars: config.agent.catalogBudgetChars,
    watch: options.watchSkills ?? true,
  });
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
    instanceId,
  });
  // Fired once per question, by the instance whose resolution won: one line, one count, whoever clicked where.
  approvals.on('hitl-option-resolved', (record) => {
    metrics.approvals.inc({ skill: record.skillId, outcome: record.outcome ?? 'unknown' });
    logDecision(logger, record);
  });
  await approvals.start();
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
  // The egress CA beside the state key (in memory with a memory:// store), made on the first run with credentials.
  const executor = executorFromConfig(config, logger, { hashFolder, egressCa: () => loadEgressCa(config.storeUrl === 'memory://' ? undefined : keyFolder(config.storeUrl, process.cwd())) });
  reportSandbox(await executor.sandbox(), logger);
  // The executor runs a copy of the skill only when it hashes to the approved content (hashFolder); the
  // wrapper checks the folder before that too and names a change plainly for the model and the person.
  const scripts = countRunning(bindToApprovedContent(executor, hashFolder));
  const workspaces = new ChatWorkspaces({ settings: { ...config.workspace, root: workspaceRoot }, store, owner: (chatId) => executor.workspaceOwner(chatId), seal: manifestSeal(stateKey.secret), logger });
  // Idle chats' folders go at start and then twice a day; a failed sweep is only logged (it is tried again).
  const sweepWorkspaces = () => void workspaces.sweep().catch((error: unknown) => logger.warn({ err: error }, 'sweeping idle chat workspaces failed'));
  sweepWorkspaces();
  const workspaceSweeper = setInterval(sweepWorkspaces, WORKSPACE_SWEEP_MS);
  workspaceSweeper.unref();
  const mcp = mcpFromConfig(config, { executor, approvals, grants, audit, logger, store, stateKey: stateKey.secret, ourToolNames: OUR_TOOL_NAMES });
  const routineBook = new RoutineBook(store);
  const routineClock = schedulerClock(config.routines.clock);
  const routineRules = new RoutineRules({
    book: routineBook,
    clock: routineClock,
    admins: config.admins,
    timezoneOf: (worldId) => worldSettings(config, worldId).timezone,
    followupsPerChat: config.routines.followupsPerChat,
    logger,
    forgetGrants: (id) => grants.revoke({ chatId: routineGrantChat(id) }),
  });
  const budgets = new TokenBudgets(store);
  const engine = new Engine({
    config,
    followups: routineRules,
    budgets,
    ...(mcp === undefined ? {} : { mcp: mcp.tools }),
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
    workspaces,
    settingsFor: (worldId) => ({ ...worldSettings(config, worldId), notHere: installed.hiddenIn(worldId) }),
  });
  const installer = new Installer({ config, store, registry, approvals, audit, installed, executor, hashFolder, logger, seal: installSeal });
  const access = new Access({ config, store, logger, metrics });
  await access.start();
  const dispatcher = new Dispatcher<TurnOutcome>({
    store,
    runTurn: async (message, sink, turnId, platform) => {
      // What refused people wrote never reaches the model, this turn's context read included.
      const outcome = await engine.runTurn(message, sink, turnId, access.filterContext(platform, message.worldId));
      // Refused at the budget gate (inside the turn): nothing ran, nothing to count.
      if (outcome.status === 'over_budget') return outcome;
      if (message.origin) await routines.recordOutcome(message, outcome.status).catch((error: unknown) => logger.warn({ err: error, turnId }, 'keeping a routine run\'s result failed'));
      // Spend by world and model (the turn counted the world's budget as it closed): the metrics count every token.
      metrics.countTokens(message.worldId, config.model, outcome.usage);
      await access.limits.addTokens(message.worldId, message.userId, turnId, totalTokens(outcome.usage)).catch((error: unknown) => logger.warn({ err: error, worldId: message.worldId }, 'counting the person\'s tokens failed'));
      const budget = worldSettings(config, message.worldId).dailyTokenBudget;
      if (budget !== undefined) {
        await alertAdmins({ store, logger, admins: config.admins, platform }, message.worldId, await budgets.spentToday(message.worldId), budget).catch((error: unknown) =>
          logger.warn({ err: error, worldId: message.worldId }, 'alerting the admins of the budget failed'),
        );
      }
      return outcome;
    },
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
  const routines = new RoutineService({
    config,
    store,
    book: routineBook,
    rules: routineRules,
    clock: routineClock,
    instanceId,
    stateKey: stateKey.secret,
    audit,
    // A run, follow-up or delivery is the owner's turn: their access and limits apply, as if they had asked.
    accept: async (message, keys) => {
      const admission = await access.admitScheduled(message.worldId, message.userId, keys[0] ?? message.chatId);
      if (admission.kind === 'allowed') return dispatcher.accept(message, keys);
      const port = dispatcher.port(parseWorldId(message.worldId).platform);
      await port?.tellPrivately?.(message.chatId, message.userId, admission.note).catch((error: unknown) => logger.warn({ err: error, chatId: message.chatId }, 'telling a routine\'s owner why it did not run failed'));
      return 'denied';
    },
    port: (platform) => dispatcher.port(platform),
    logger: logger.child({ part: 'routines' }),
    metrics,
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
    instanceId,
    ...(mcp === undefined ? {} : { mcp }),
    installer,
    installed,
    routines,
    access,
    async shutdown(deadlineMs) {
      await routines.stop();
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
    },
    async close() {
      // Turns still running get a moment, then their chats are handed over (their messages stay queued).
      await dispatcher.stop(2_000);
      // Shared store: questions still open stay pending for the instance that re-runs their turns. Alone, no
      // one else will: they end now, and their messages say so.
      await closeRest(store.kind === 'redis');
    },
  };

  async function closeRest(handOver: boolean): Promise<void> {
    await routines.stop();
    await approvals.close({ handOver });
    await stops.close();
    await access.close();
    clearInterval(workspaceSweeper);
    await mcp?.close();
    await installed.close();
    await registry.close();
    executor.close();
    await store.close();
  }
}

/** Who ends the turns still running at a shutdown (a system name: nothing is posted for it). */
const SHUTDOWN_BY = 'system:shutdown';
