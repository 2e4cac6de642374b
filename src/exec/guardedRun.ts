// One run, once it holds its slot: the checks that refuse it, its private folders, its egress proxy, the prepared
// sandbox (runPlan.ts), its cgroup, the spawn, and the workspace's report after it. Never throws for a run's own
// failure: every outcome is an ExecResult.
import path from 'node:path';
import type { Logger } from '../ops/log.ts';
import { type Trust, trustFor } from './egressCa.ts';
import type { EgressProxies, EgressRunProxy } from './egressProxy.ts';
import { mountBound } from './limits.ts';
import { checkRequest, type CheckedRequest } from './request.ts';
import { refusal } from './results.ts';
import type { RunCgroup } from './runCgroup.ts';
import { closeWorkspace, createRunDirs, removeRunDirs, type RunDirs } from './runDirs.ts';
import { type PreparedRun, prepareRun, type Releases, type RunPlan } from './runPlan.ts';
import { egressSocketIn, placeholders, sandboxCgroup } from './sandboxPlan.ts';
import { spawnPrepared } from './spawnRun.ts';
import type { ExecRequest, ExecResult, SandboxStatus } from './types.ts';
import { effectiveLimit, guardWorkspace, overBound } from './workspaceGuard.ts';
import { changedFiles, exceeds, limitSentence, scanTree, type TreeScan } from '../workspace/workspaceTree.ts';

/** What every run of one executor shares. */
export interface RunContext {
  timeoutMs: number;
  killGraceMs?: number;
  maxOutputBytes?: number;
  /** The executor's own egressAllow, beside each request's. */
  egressAllow: readonly string[];
  proxies: EgressProxies;
  trust: Trust | undefined;
  logger?: Logger;
}

type Opening = Promise<EgressRunProxy | Error> | undefined;

/** Why the run may not start at all, before anything is made for it. */
function refusedUpFront(request: CheckedRequest, plan: RunPlan, status: SandboxStatus): string | undefined {
  if (!status.usable) return `skill code is not run because the sandbox is unusable: ${status.problem}. To fix: ${status.fix}.`;
  if (request.network === true && status.mode === 'bwrap' && status.network !== undefined) {
    return `this skill may use the network, but the sandbox cannot give it a safe way out: ${status.network.problem}. To fix: ${status.network.fix}.`;
  }
  if (plan.copies !== undefined && request.script !== undefined && request.expectedHash === undefined) {
    return 'the run names no approved content hash, so what would run cannot be checked against what was approved';
  }
  return undefined;
}

export async function runGuarded(raw: ExecRequest, plan: RunPlan, status: SandboxStatus, startedAt: number, context: RunContext): Promise<ExecResult> {
  if (raw.signal?.aborted === true) return refusal(startedAt, 'the run was stopped before it started', 'stopped');
  const checked = checkRequest(raw);
  if (!checked.ok) return refusal(startedAt, checked.reason);
  const credentials = checked.request.credentials;
  const request = credentials.length === 0 ? checked.request : { ...checked.request, env: { ...checked.request.env, ...placeholders(credentials) } };
  const refused = refusedUpFront(request, plan, status);
  if (refused !== undefined) return refusal(startedAt, refused);
  const workspace = request.workspace;
  const before = workspace === undefined ? undefined : await scanTree(workspace.dir);
  // Over its bound (space allocated with `fallocate --keep-size` counts what the disk holds): nothing more runs there.
  const over = workspace === undefined || before === undefined ? undefined : overBound(before, workspace);
  if (over !== undefined) return refusal(startedAt, over);
  const dirs = createRunDirs(plan.owner);
  const releases: Releases = [];
  try {
    return await runInDirs(raw, request, dirs, releases, before, plan, startedAt, context);
  } finally {
    const reopened = workspace === undefined ? undefined : closeWorkspace(workspace.dir, plan.owner);
    if (reopened !== undefined) context.logger?.warn({ err: reopened }, 'the workspace could not be closed to other accounts after the run');
    for (const release of releases) release();
    // Every process of the run is dead by now (its PID namespace or group was killed): nothing writes there any
    // more, and the caller need not wait for a large TMPDIR to be deleted.
    void removeRunDirs(dirs).then((failure) => {
      if (failure !== undefined) context.logger?.warn({ err: failure, dir: dirs.root }, 'could not remove a run folder');
    });
  }
}

async function runInDirs(
  raw: ExecRequest,
  request: CheckedRequest,
  dirs: RunDirs,
  releases: Releases,
  before: TreeScan | undefined,
  plan: RunPlan,
  startedAt: number,
  context: RunContext,
): Promise<ExecResult> {
  const workspace = request.workspace;
  const bound = workspace === undefined || before === undefined ? undefined : effectiveLimit({ bytes: workspace.maxBytes, files: workspace.maxFiles }, before);
  const room = bound === undefined || before === undefined ? Number.POSITIVE_INFINITY : bound.bytes - before.bytes;
  // A networked run's way out: its proxy, in the egress process. Its socket's folder is bound, so the egress
  // process may still be making the socket while bwrap sets up: where a gate holds the run's first process
  // (cgroup mode), the gate waits for it; elsewhere the spawn does.
  const network = request.network === true && plan.mode === 'bwrap';
  const socket = network ? egressSocketIn(dirs.root, plan.owner) : '';
  const runTrust = network && request.credentials.length > 0 ? await trustFor(context.trust) : undefined;
  if (typeof runTrust === 'string') return refusal(startedAt, runTrust, 'failed');
  const name = request.skillId ?? (request.skillDir === undefined ? 'bash' : path.basename(path.resolve(request.skillDir)));
  const opening: Opening = network
    ? context.proxies.open(socket, { name, allow: [...context.egressAllow, ...request.egressAllow], credentials: request.credentials }, plan.owner).catch((error: unknown) => error as Error)
    : undefined;
  const prepared = await prepareRun(request, dirs, plan, room, releases, network ? { socket, ...(runTrust === undefined ? {} : { trust: runTrust }) } : undefined).catch(async (error: unknown) => {
    await closeOpening(opening);
    throw error;
  });
  if ('refused' in prepared) {
    await closeOpening(opening);
    return refusal(startedAt, prepared.refused);
  }
  const ready = opening?.then((opened) => {
    if (!(opened instanceof Error)) return undefined;
    context.logger?.warn({ err: opened }, 'the egress proxy could not start');
    return `this skill may use the network, but its egress proxy could not start (${opened.message}), so it was not run`;
  });
  if (plan.cgroups === undefined) {
    const notReady = await ready;
    if (notReady !== undefined) return refusal(startedAt, notReady, 'failed');
  }
  const overLimit = new AbortController();
  const guard = workspace === undefined || before === undefined ? undefined : guardWorkspace(workspace.dir, { bytes: workspace.maxBytes, files: workspace.maxFiles }, before, () => overLimit.abort());
  let result: ExecResult;
  try {
    result = await spawnBounded(prepared, request, raw, plan, { startedAt, context, ready, opening, overLimit });
  } finally {
    guard?.stop();
  }
  if (workspace === undefined || before === undefined || bound === undefined) return result;
  const after = await scanTree(workspace.dir);
  const limit = { bytes: workspace.maxBytes, files: workspace.maxFiles };
  // The guard stopped it, or a file hit RLIMIT_FSIZE set to the room left, or it ended over the bound between polls.
  const fileCapped = room < plan.limits.maxFileBytes && (result.signal === 'SIGXFSZ' || /File too large/i.test(result.stderr));
  const limitReached = guard?.tripped ?? (exceeds(after, bound, before) || fileCapped ? limitSentence(limit, fileCapped ? { bytes: Infinity, files: 0 } : after) : undefined);
  const report = { changes: changedFiles(before, after), bytes: after.bytes, files: after.files, ...(limitReached === undefined ? {} : { limitReached }) };
  if (guard?.tripped !== undefined && result.status === 'stopped') {
    return { ...result, status: 'failed', reason: `${guard.tripped}: the run was stopped`, workspace: report };
  }
  return { ...result, workspace: report };
}

interface SpawnParts {
  startedAt: number;
  context: RunContext;
  ready: Promise<string | undefined> | undefined;
  opening: Opening;
  overLimit: AbortController;
}

/** The spawn in the run's cgroup (where the plan has them), then the proxy's report of what it refused. */
async function spawnBounded(prepared: PreparedRun, request: CheckedRequest, raw: ExecRequest, plan: RunPlan, parts: SpawnParts): Promise<ExecResult> {
  const { startedAt, context, ready, opening, overLimit } = parts;
  let group: RunCgroup | undefined;
  let refused: string[] = [];
  let result: ExecResult;
  try {
    try {
      group = prepared.sandboxed ? sandboxCgroup(plan, plan.limits) : undefined;
    } catch (error) {
      return refusal(startedAt, `the run's cgroup could not be made (${(error as Error).message}), so it was not run unbounded`, 'failed');
    }
    const mib = Math.round(plan.limits.memoryBytes / (1024 * 1024));
    result = await spawnPrepared(prepared, request, {
      timeoutMs: request.timeoutMs ?? context.timeoutMs,
      killGraceMs: context.killGraceMs,
      maxOutputBytes: request.maxOutputBytes ?? context.maxOutputBytes,
      signal: raw.signal === undefined ? overLimit.signal : AbortSignal.any([raw.signal, overLimit.signal]),
      logger: context.logger,
      startedAt,
      mountBound: (mount) => mountBound(mount, plan.limits),
      ...(ready === undefined ? {} : { ready }),
      ...(group === undefined
        ? {}
        : {
            cgroup: {
              group,
              memory: `the run reached its memory bound (${mib} MiB for the whole run, its HOME, /tmp and /dev/shm included: SCRIPT_MEMORY_MB)`,
              processes: `the run reached its process bound (${plan.limits.maxProcesses}: SCRIPT_MAX_PROCESSES)`,
            },
          }),
    });
  } finally {
    const opened = await opening;
    refused = opened === undefined || opened instanceof Error ? [] : await opened.close();
    await group?.remove();
  }
  return withEgressReport(result, refused, raw.script, context.logger);
}

/** Closes a proxy that was being opened for a run that will not start. */
async function closeOpening(opening: Opening): Promise<void> {
  const opened = await opening;
  if (opened !== undefined && !(opened instanceof Error)) await opened.close();
}

/** What the egress proxy refused a networked run: logged, and named in a failed run's reason. */
function withEgressReport(result: ExecResult, refused: string[], script: string | undefined, logger: Logger | undefined): ExecResult {
  if (refused.length === 0) return result;
  logger?.warn({ script: script ?? 'shell', refused }, 'the egress proxy refused destinations of a skill');
  return result.status === 'ok' ? result : { ...result, reason: `${result.reason ?? 'the script failed'}; the network proxy refused ${refused.join(', ')}` };
}
