// The one guarded way skillbot runs skill code: a bubblewrap sandbox over a private copy of the approved skill,
// contained path, chosen interpreter, allowlisted environment, argv without a shell, bounded output and
// resources, a timeout or a stop that takes the whole sandbox, bounds on concurrency overall and per chat. One
// sandbox plan (sandboxPlan.ts), two ways to run in it: `run` (a script, guardedRun.ts) and `startService` (a
// long-running stdio MCP server, longRunning.ts).
import { performance } from 'node:perf_hooks';
import { type Logger, silentLogger } from '../ops/log.ts';
import { type CaPems, caOnce, trustFor } from './egressCa.ts';
import { createEgressProxies, type EgressBounds } from './egressProxy.ts';
import { DEFAULT_SKILL_COPY_BOUNDS } from './folderCopy.ts';
import { type RunContext, runGuarded } from './guardedRun.ts';
import { createServiceLauncher } from './longRunning.ts';
import { refusal } from './results.ts';
import { sweepStaleRunDirs } from './runDirs.ts';
import type { RunPlan } from './runPlan.ts';
import { createSandboxPlan, type SandboxPlan, type SandboxPlanOptions } from './sandboxPlan.ts';
import { probeSandbox } from './sandboxProbe.ts';
import { KeyedSemaphore, Semaphore, type Slot } from './semaphore.ts';
import type { ExecRequest, ExecResult, Executor, HashFolder, SandboxStatus } from './types.ts';
import { VerifiedCopies } from './verifiedCopies.ts';

export interface ExecutorOptions extends SandboxPlanOptions {
  /** SCRIPT_TIMEOUT_MS: a run is then killed with its whole sandbox. */
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each (default 64 KiB). */
  maxOutputBytes?: number;
  /** Runs at once; more wait in order (default 4). */
  maxConcurrent?: number;
  /** Runs at once for one chat (request.chatId), so one chat cannot hold every slot (default 2). */
  maxConcurrentPerChat?: number;
  /** Between SIGTERM and SIGKILL at the timeout (default 2000 ms). */
  killGraceMs?: number;
  /**
   * The registry's folder hash. With it, every request must carry `expectedHash`, and the private copy of the
   * skill folder must hash to it, or the run is refused.
   */
  hashFolder?: HashFolder;
  /** Bounds on the skill folder copied for each run (default 64 MiB, 10,000 entries). */
  maxSkillBytes?: number;
  /**
   * Address ranges (CIDR) or host names every networked run may reach although they are private or reserved
   * (default none: only public addresses), beside a request's own `egressAllow`. Loopback and the host's own
   * addresses stay refused whatever this says.
   */
  egressAllow?: string[];
  /** Bounds of each run's egress proxy (connections, idle time, name lookups): DEFAULT_EGRESS_BOUNDS. */
  egressBounds?: Partial<EgressBounds>;
  /** DNS servers the egress proxy asks, for runs and services alike (default: the host's resolv.conf). */
  egressDnsServers?: string[];
  /**
   * The installation's egress CA (egressCa.ts loadEgressCa), asked for on the first run with credentials; without
   * it a networked run with credentials is refused.
   */
  egressCa?: () => Promise<CaPems>;
  logger?: Logger;
}

const DEFAULT_MAX_CONCURRENT = 4;
const DEFAULT_MAX_PER_CHAT = 2;

export function createExecutor(options: ExecutorOptions): Executor {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new RangeError(`the script timeout must be a positive number of ms, got ${options.timeoutMs}`);
  }
  const logger = options.logger;
  const sandbox = createSandboxPlan(options);
  const copies =
    options.hashFolder === undefined
      ? undefined
      : new VerifiedCopies(options.hashFolder, { ...DEFAULT_SKILL_COPY_BOUNDS, ...(options.maxSkillBytes === undefined ? {} : { maxBytes: options.maxSkillBytes }) });
  const trust = options.egressCa === undefined ? undefined : caOnce(options.egressCa);
  const proxies = createEgressProxies({
    ...(trust === undefined ? {} : { ca: () => trust.proxy() }),
    ...(options.egressBounds === undefined ? {} : { bounds: options.egressBounds }),
    ...(options.egressDnsServers === undefined ? {} : { dnsServers: options.egressDnsServers }),
    ...(logger === undefined ? {} : { logger }),
  });
  // Folders of runs a crashed bot left behind (its own or an earlier process's) go at start.
  sweepStaleRunDirs(logger);
  // Probed once, right away; every run waits for the answer.
  const status = probe(sandbox);
  const egressAllow = options.egressAllow ?? [];
  const context: RunContext = { timeoutMs: options.timeoutMs, killGraceMs: options.killGraceMs, maxOutputBytes: options.maxOutputBytes, egressAllow, proxies, trust, logger };
  const egress: Executor['egress'] = (socketPath, policy, owner) => proxies.open(socketPath, { ...policy, allow: [...egressAllow, ...policy.allow] }, owner);
  const egressTrust: Executor['egressTrust'] = () => trustFor(trust);
  const services = createServiceLauncher({ plan: sandbox, sandbox: () => status, egress, egressTrust, logger: logger ?? silentLogger() });
  const runPlan = (slot: number, request: ExecRequest): RunPlan => ({
    ...sandbox,
    owner: sandbox.ids.run(slot, request.workspace === undefined ? undefined : request.chatId),
    ...(copies === undefined ? {} : { copies }),
    maxSkillBytes: options.maxSkillBytes,
    ...(sandbox.bounds.kind === 'cgroup' ? { cgroups: sandbox.bounds } : {}),
  });
  const queue = queued(options, async (request, slot, startedAt) => runGuarded(request, runPlan(slot, request), await status, startedAt, context));
  return {
    sandbox: () => status,
    workspaceOwner: (chatId) => sandbox.ids.workspaceOwner(chatId),
    close: () => {
      copies?.close();
      proxies.close();
      trust?.close();
    },
    egress,
    egressTrust,
    startService: (spec) => services.start(spec),
    async run(request) {
      const queuedAt = performance.now();
      const result = await queue(request);
      const fields = { script: request.script ?? 'shell', chatId: request.chatId, status: result.status, exitCode: result.exitCode, durationMs: result.durationMs, queuedMs: Math.round(performance.now() - queuedAt - result.durationMs) };
      if (result.status === 'ok') logger?.debug(fields, 'skill script finished');
      else logger?.warn({ ...fields, reason: result.reason }, 'skill script did not succeed');
      return result;
    },
  };
}

function probe(plan: SandboxPlan): Promise<SandboxStatus> {
  if (plan.mode === 'off') return Promise.resolve({ mode: 'off', usable: true, isolates: ['nothing: SCRIPT_SANDBOX=off runs skill processes as the bot'] });
  const { bwrapPath, prlimitPath, limits, system, nodePath, bounds } = plan;
  return probeSandbox({ bwrapPath, prlimitPath, limits, system, owner: plan.ids.run(0), nodePath, bounds });
}

/**
 * The two queues a run waits in (its chat's, then the executor's), numbered slots, and a Stop while it waits: `run`
 * gets the slot and the time the run got it; whatever it throws is our own fault, still a result.
 */
function queued(options: ExecutorOptions, run: (request: ExecRequest, slot: number, startedAt: number) => Promise<ExecResult>) {
  const slots = new Semaphore(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT);
  const chatSlots = new KeyedSemaphore(options.maxConcurrentPerChat ?? DEFAULT_MAX_PER_CHAT);
  return async (request: ExecRequest): Promise<ExecResult> => {
    const held: Slot[] = [];
    try {
      // A Stop while the run waits for a slot ends the wait.
      const chatSlot = request.chatId === undefined ? undefined : await chatSlots.acquire(request.chatId, request.signal);
      if (chatSlot !== undefined) held.push(chatSlot);
      const slot = request.chatId !== undefined && chatSlot === undefined ? undefined : await slots.acquire(request.signal);
      const startedAt = performance.now();
      if (slot === undefined) return refusal(startedAt, 'the run was stopped while it waited for a free slot', 'stopped');
      held.push(slot);
      try {
        return await run(request, slot.index, startedAt);
      } catch (error) {
        // Our own fault (e.g. the temp folder could not be made): still a result, never a throw.
        return refusal(startedAt, `could not run the script: ${(error as Error).message}`, 'failed');
      }
    } finally {
      for (const slot of held.reverse()) slot.release();
    }
  };
}
