// The parts createApp (src/app.ts) builds in steps, one function per step: who asks and remembers (approvals,
// grants, the audit trail), and the one guarded way to run code with the chats' workspaces it mounts.
import { type Config, worldSettings } from './config/config.ts';
import { executorFromConfig, reportSandbox } from './exec/fromConfig.ts';
import { loadEgressCa } from './exec/egressCa.ts';
import { keyFolder } from './keys/stateKey.ts';
import type { Executor, HashFolder } from './exec/types.ts';
import {
  ApprovalRuntime,
  type AuditLog,
  bindToApprovedContent,
  createAuditLog,
  createGrants,
  createStoreApprovalBus,
  type Grants,
  logDecision,
  type RecordSealer,
} from './approvals/index.ts';
import type { Logger } from './ops/log.ts';
import type { Metrics } from './ops/metrics.ts';
import type { Store } from './store/types.ts';
import { ChatWorkspaces } from './workspace/chatWorkspaces.ts';
import { manifestSeal } from './workspace/manifestSeal.ts';

const WORKSPACE_SWEEP_MS = 12 * 60 * 60 * 1000;

interface Base {
  config: Config;
  logger: Logger;
  store: Store;
  metrics: Metrics;
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

/** The audit trail, session grants (a forged row ignored and put on record) and the question runtime, started. */
export async function openApprovals(base: Base, sealer: RecordSealer, instanceId: string): Promise<{ audit: AuditLog; grants: Grants; approvals: ApprovalRuntime }> {
  const { config, logger, store, metrics } = base;
  const audit = countRuns(createAuditLog(store), metrics);
  const grants = createGrants(store, {
    ttlMs: config.agent.grantTtlMs,
    sealer,
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
  return { audit, grants, approvals };
}

export interface Sandboxing {
  /** The executor as configured (MCP's stdio servers start through it). */
  executor: Executor;
  /** The executor skill runs use: bound to approved content and counted. */
  scripts: { executor: Executor; running: () => number };
  workspaces: ChatWorkspaces;
  stopSweeping(): void;
}

/** The sandbox, the runs bound to the approved content, and the chats' workspaces with their idle sweep. */
export async function openSandboxing(base: Base, hashFolder: HashFolder, stateKey: Buffer, workspaceRoot: string): Promise<Sandboxing> {
  const { config, logger, store } = base;
  // The egress CA beside the state key (in memory with a memory:// store), made on the first run with credentials.
  const executor = executorFromConfig(config, logger, { hashFolder, egressCa: () => loadEgressCa(config.storeUrl === 'memory://' ? undefined : keyFolder(config.storeUrl, process.cwd())) });
  reportSandbox(await executor.sandbox(), logger);
  // The executor runs a copy of the skill only when it hashes to the approved content (hashFolder); the
  // wrapper checks the folder before that too and names a change plainly for the model and the person.
  const scripts = countRunning(bindToApprovedContent(executor, hashFolder));
  const workspaces = new ChatWorkspaces({ settings: { ...config.workspace, root: workspaceRoot }, store, owner: (chatId) => executor.workspaceOwner(chatId), seal: manifestSeal(stateKey), logger });
  // Idle chats' folders go at start and then twice a day; a failed sweep is only logged (it is tried again).
  const sweepWorkspaces = () => void workspaces.sweep().catch((error: unknown) => logger.warn({ err: error }, 'sweeping idle chat workspaces failed'));
  sweepWorkspaces();
  const sweeper = setInterval(sweepWorkspaces, WORKSPACE_SWEEP_MS);
  sweeper.unref();
  return {
    executor,
    scripts,
    workspaces,
    stopSweeping: () => clearInterval(sweeper),
  };
}
