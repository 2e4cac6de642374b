// The one guarded way skillbot runs skill code: a bubblewrap sandbox over a private copy of the approved skill,
// contained path, chosen interpreter, allowlisted environment, argv without a shell, bounded output and
// resources, a timeout or a stop that takes the whole sandbox, bounds on concurrency overall and per chat.
import { chownSync, mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../ops/log.ts';
import type { SandboxLimits } from '../config/sandboxSettings.ts';
import { DEFAULT_LIMITS, mountBound, tasksOfUid } from './limits.ts';
import { checkRequest } from './request.ts';
import { prepareRun, type Releases, type RunPlan } from './runPlan.ts';
import { closeWorkspace, createRunDirs, removeRunDirs, type RunOwner, sweepStaleRunDirs } from './runDirs.ts';
import { systemMounts } from './sandbox.ts';
import { probeSandbox } from './sandboxProbe.ts';
import { KeyedSemaphore, Semaphore, type Slot } from './semaphore.ts';
import { spawnPrepared } from './spawnRun.ts';
import { DEFAULT_SKILL_COPY_BOUNDS } from './folderCopy.ts';
import path from 'node:path';
import { createEgressProxies, type EgressBounds, type EgressProxies, type EgressRunProxy } from './egressProxy.ts';
import { type CaPems, caOnce, type Trust, trustFor } from './egressCa.ts';
import { placeholderOf } from './egressCredentials.mjs';
import { type BoundsMode, createRunCgroup, detectBoundsMode, type RunCgroup } from './runCgroup.ts';
import { refusal } from './results.ts';
import type { ExecRequest, ExecResult, Executor, HashFolder, SandboxStatus } from './types.ts';
import { VerifiedCopies } from './verifiedCopies.ts';
import { effectiveLimit, guardWorkspace, overBound } from './workspaceGuard.ts';
import { changedFiles, exceeds, limitSentence, scanTree } from '../workspace/workspaceTree.ts';

export interface ExecutorOptions {
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
  /** SCRIPT_SANDBOX: `bwrap` (default) runs every process in bubblewrap or refuses it; `off` runs it bare. */
  sandbox?: 'bwrap' | 'off';
  /** The bwrap program (a name on PATH or a path); tests point it at a missing or failing one. */
  bwrapPath?: string;
  /** The node that runs .js scripts (default: the bot's own, wherever it is installed). */
  nodePath?: string;
  /** The util-linux prlimit program that applies the limits. */
  prlimitPath?: string;
  /** Resource bounds of each sandbox (SCRIPT_MAX_PROCESSES, SCRIPT_MEMORY_MB, …). */
  limits?: Partial<SandboxLimits>;
  /**
   * When the bot runs as root, slot N runs as uid/gid `sandboxUidBase + N` (default 100000), and a chat's runs as
   * one uid of its own above those (its workspace files belong to it).
   */
  sandboxUidBase?: number;
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
  /**
   * `auto` (default): where the host lets the bot make cgroups (a delegated v2 tree, or v1 hierarchies it may write)
   * each run gets a cgroup bounding its memory (tmpfs included) and processes as a whole; elsewhere the rlimits alone
   * apply. `off`: rlimits alone. A BoundsMode found
   * elsewhere (detectBoundsMode with other sources) is taken as it is.
   */
  cgroups?: 'auto' | 'off' | BoundsMode;
  /** DNS servers the egress proxy asks (default: the host's resolv.conf); tests name a server of their own. */
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
const DEFAULT_UID_BASE = 100_000;
/** Chats' uids start this far above the base (slots below), spread over this many ids. */
const CHAT_UID_OFFSET = 1024;
const CHAT_UID_SPREAD = 60_000;

/** A chat's sandbox uid offset: stable across runs, restarts and instances (FNV-1a of the chat id). */
function chatUidOffset(chatId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(chatId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return CHAT_UID_OFFSET + (hash % CHAT_UID_SPREAD);
}

export function createExecutor(options: ExecutorOptions): Executor {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new RangeError(`the script timeout must be a positive number of ms, got ${options.timeoutMs}`);
  }
  const slots = new Semaphore(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT);
  const chatSlots = new KeyedSemaphore(options.maxConcurrentPerChat ?? DEFAULT_MAX_PER_CHAT);
  const logger = options.logger;
  const mode = options.sandbox ?? 'bwrap';
  const root = process.getuid?.() === 0;
  const configured: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  // As root each slot has a uid of its own and the process bound is the sandbox's alone. Otherwise RLIMIT_NPROC
  // counts every task of the bot's user (a desktop runs hundreds), so the bound sits that far above them.
  const limits: SandboxLimits =
    root || mode === 'off' ? configured : { ...configured, maxProcesses: configured.maxProcesses + tasksOfUid(process.getuid?.() ?? -1) };
  const nodePath = options.nodePath ?? process.execPath;
  const system = mode === 'bwrap' ? systemMounts(nodePath) : [];
  const uidBase = options.sandboxUidBase ?? DEFAULT_UID_BASE;
  const idOwner = (offset: number): RunOwner => ({ uid: uidBase + offset, gid: uidBase + offset });
  const sandboxedAsRoot = root && mode === 'bwrap';
  const ownerOf = (slot: number, chatId?: string): RunOwner | undefined =>
    root ? idOwner(chatId === undefined ? slot : chatUidOffset(chatId)) : undefined;
  const copies =
    options.hashFolder === undefined
      ? undefined
      : new VerifiedCopies(options.hashFolder, { ...DEFAULT_SKILL_COPY_BOUNDS, ...(options.maxSkillBytes === undefined ? {} : { maxBytes: options.maxSkillBytes }) });
  const bwrapPath = options.bwrapPath ?? 'bwrap';
  const trust = options.egressCa === undefined ? undefined : caOnce(options.egressCa);
  const egress = createEgressProxies({
    ...(trust === undefined ? {} : { ca: async () => (await trust()).proxy }),
    ...(options.egressBounds === undefined ? {} : { bounds: options.egressBounds }),
    ...(options.egressDnsServers === undefined ? {} : { dnsServers: options.egressDnsServers }),
    ...(logger === undefined ? {} : { logger }),
  });
  // Folders of runs a crashed bot left behind (its own or an earlier process's) go at start.
  sweepStaleRunDirs(options.logger);
  const bounds: BoundsMode =
    mode === 'off' || options.cgroups === 'off'
      ? { kind: 'rlimits', why: 'cgroups are turned off for this executor' }
      : typeof options.cgroups === 'object'
        ? options.cgroups
        : detectBoundsMode();
  const prlimitPath = options.prlimitPath ?? 'prlimit';
  // Probed once, right away; every run waits for the answer.
  const status: Promise<SandboxStatus> =
    mode === 'off'
      ? Promise.resolve({ mode: 'off', usable: true, isolates: ['nothing: SCRIPT_SANDBOX=off runs skill processes as the bot'] })
      : probeSandbox({ bwrapPath, prlimitPath, limits, system, owner: ownerOf(0), nodePath, bounds });

  const plan = (owner: RunOwner | undefined): RunPlan => ({
    mode,
    limits,
    system,
    owner,
    bwrapPath,
    prlimitPath,
    nodePath,
    ...(copies === undefined ? {} : { copies }),
    maxSkillBytes: options.maxSkillBytes,
    ...(bounds.kind === 'cgroup' ? { cgroups: bounds } : {}),
  });

  return {
    sandbox: () => status,
    workspaceOwner: (chatId) => (sandboxedAsRoot ? idOwner(chatUidOffset(chatId)) : undefined),
    close: () => {
      copies?.close();
      egress.close();
    },
    egress: (socketPath, policy, owner) => egress.open(socketPath, { ...policy, allow: [...(options.egressAllow ?? []), ...policy.allow] }, owner),
    egressTrust: (dir) => trustFor(trust, dir),
    async run(request: ExecRequest): Promise<ExecResult> {
      const queuedAt = performance.now();
      const held: Slot[] = [];
      let result: ExecResult;
      try {
        // A Stop while the run waits for a slot ends the wait.
        const chatSlot = request.chatId === undefined ? undefined : await chatSlots.acquire(request.chatId, request.signal);
        if (chatSlot !== undefined) held.push(chatSlot);
        const slot = request.chatId !== undefined && chatSlot === undefined ? undefined : await slots.acquire(request.signal);
        const startedAt = performance.now();
        if (slot === undefined) {
          result = refusal(startedAt, 'the run was stopped while it waited for a free slot', 'stopped');
        } else {
          held.push(slot);
          try {
            result = await runGuarded(request, options, plan(ownerOf(slot.index, request.workspace === undefined ? undefined : request.chatId)), await status, startedAt, { proxies: egress, trust });
          } catch (error) {
            // Our own fault (e.g. the temp folder could not be made): still a result, never a throw.
            result = refusal(startedAt, `could not run the script: ${(error as Error).message}`, 'failed');
          }
        }
      } finally {
        for (const slot of held.reverse()) slot.release();
      }
      const fields = { script: request.script ?? 'shell', chatId: request.chatId, status: result.status, exitCode: result.exitCode, durationMs: result.durationMs, queuedMs: Math.round(performance.now() - queuedAt - result.durationMs) };
      if (result.status === 'ok') logger?.debug(fields, 'skill script finished');
      else logger?.warn({ ...fields, reason: result.reason }, 'skill script did not succeed');
      return result;
    },
  };
}

async function runGuarded(
  raw: ExecRequest,
  options: ExecutorOptions,
  plan: RunPlan,
  status: SandboxStatus,
  startedAt: number,
  { proxies: egress, trust }: { proxies: EgressProxies; trust: Trust | undefined },
): Promise<ExecResult> {
  if (raw.signal?.aborted === true) return refusal(startedAt, 'the run was stopped before it started', 'stopped');
  const checked = checkRequest(raw);
  if (!checked.ok) return refusal(startedAt, checked.reason);
  // The run holds each credential's placeholder, never its value (which only the egress proxy has).
  const credentials = checked.request.credentials;
  const request = credentials.length === 0 ? checked.request : { ...checked.request, env: { ...checked.request.env, ...Object.fromEntries(credentials.map((credential) => [credential.env, placeholderOf(credential.env)])) } };
  if (!status.usable) {
    return refusal(startedAt, `skill code is not run because the sandbox is unusable: ${status.problem}. To fix: ${status.fix}.`);
  }
  if (request.network === true && status.mode === 'bwrap' && status.network !== undefined) {
    return refusal(startedAt, `this skill may use the network, but the sandbox cannot give it a safe way out: ${status.network.problem}. To fix: ${status.network.fix}.`);
  }
  if (plan.copies !== undefined && request.script !== undefined && request.expectedHash === undefined) {
    return refusal(startedAt, 'the run names no approved content hash, so what would run cannot be checked against what was approved');
  }
  const workspace = request.workspace;
  const before = workspace === undefined ? undefined : await scanTree(workspace.dir);
  // Over its bound (space allocated with `fallocate --keep-size` counts what the disk holds): nothing more runs there.
  const over = workspace === undefined || before === undefined ? undefined : overBound(before, workspace);
  if (over !== undefined) return refusal(startedAt, over);
  const bound = workspace === undefined || before === undefined ? undefined : effectiveLimit({ bytes: workspace.maxBytes, files: workspace.maxFiles }, before);
  const dirs = createRunDirs(plan.owner);
  const releases: Releases = [];
  const overLimit = new AbortController();
  try {
    const room = bound === undefined || before === undefined ? Number.POSITIVE_INFINITY : bound.bytes - before.bytes;
    // A networked run's way out: its proxy, in the egress process. Its socket's folder is bound, so the egress
    // process may still be making the socket while bwrap sets up: where a gate holds the run's first process
    // (cgroup mode), the gate waits for it; elsewhere the spawn does.
    const network = request.network === true && plan.mode === 'bwrap';
    const socket = network ? egressSocketIn(dirs.root, plan.owner) : '';
    const runTrust = network && credentials.length > 0 ? await trustFor(trust, path.join(dirs.root, 'ca')) : undefined;
    if (typeof runTrust === 'string') return refusal(startedAt, runTrust, 'failed');
    const opening = network
      ? egress
          .open(socket, { name: request.skillId ?? (request.skillDir === undefined ? 'bash' : path.basename(path.resolve(request.skillDir))), allow: [...(options.egressAllow ?? []), ...request.egressAllow], credentials }, plan.owner)
          .catch((error: unknown) => error as Error)
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
      options.logger?.warn({ err: opened }, 'the egress proxy could not start');
      return `this skill may use the network, but its egress proxy could not start (${opened.message}), so it was not run`;
    });
    if (plan.cgroups === undefined) {
      const notReady = await ready;
      if (notReady !== undefined) return refusal(startedAt, notReady, 'failed');
    }
    const guard = workspace === undefined || before === undefined ? undefined : guardWorkspace(workspace.dir, { bytes: workspace.maxBytes, files: workspace.maxFiles }, before, () => overLimit.abort());
    let result: ExecResult;
    let group: RunCgroup | undefined;
    let refused: string[] = [];
    try {
      if (plan.cgroups !== undefined && prepared.sandboxed) {
        try {
          group = createRunCgroup(plan.cgroups, plan.limits);
        } catch (error) {
          return refusal(startedAt, `the run's cgroup could not be made (${(error as Error).message}), so it was not run unbounded`, 'failed');
        }
      }
      const mib = Math.round(plan.limits.memoryBytes / (1024 * 1024));
      result = await spawnPrepared(prepared, request, {
        timeoutMs: request.timeoutMs ?? options.timeoutMs,
        killGraceMs: options.killGraceMs,
        maxOutputBytes: request.maxOutputBytes ?? options.maxOutputBytes,
        signal: raw.signal === undefined ? overLimit.signal : AbortSignal.any([raw.signal, overLimit.signal]),
        logger: options.logger,
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
      guard?.stop();
      const opened = await opening;
      refused = opened === undefined || opened instanceof Error ? [] : await opened.close();
      await group?.remove();
    }
    result = withEgressReport(result, refused, raw.script, options.logger);
    if (workspace === undefined || before === undefined || bound === undefined) return result;
    const after = await scanTree(workspace.dir);
    const limit = { bytes: workspace.maxBytes, files: workspace.maxFiles };
    // The guard stopped it, or a file hit RLIMIT_FSIZE set to the room left, or it ended over the bound between polls.
    const fileCapped = room < plan.limits.maxFileBytes && (result.signal === 'SIGXFSZ' || /File too large/i.test(result.stderr));
    const limitReached =
      guard?.tripped ?? (exceeds(after, bound, before) || fileCapped ? limitSentence(limit, fileCapped ? { bytes: Infinity, files: 0 } : after) : undefined);
    const report = { changes: changedFiles(before, after), bytes: after.bytes, files: after.files, ...(limitReached === undefined ? {} : { limitReached }) };
    if (guard?.tripped !== undefined && result.status === 'stopped') {
      return { ...result, status: 'failed', reason: `${guard.tripped}: the run was stopped`, workspace: report };
    }
    return { ...result, workspace: report };
  } finally {
    const reopened = workspace === undefined ? undefined : closeWorkspace(workspace.dir, plan.owner);
    if (reopened !== undefined) options.logger?.warn({ err: reopened }, 'the workspace could not be closed to other accounts after the run');
    for (const release of releases) release();
    // Every process of the run is dead by now (its PID namespace or group was killed): nothing writes there any
    // more, and the caller need not wait for a large TMPDIR to be deleted.
    void removeRunDirs(dirs).then((failure) => {
      if (failure !== undefined) options.logger?.warn({ err: failure, dir: dirs.root }, 'could not remove a run folder');
    });
  }
}

/** The run's egress socket path, alone in a folder of its own (bound into the sandbox), which the run's user may enter. */
function egressSocketIn(root: string, owner: RunOwner | undefined): string {
  const dir = path.join(root, 'egress');
  mkdirSync(dir, { mode: 0o700 });
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  return path.join(dir, 'egress.sock');
}

/** Closes a proxy that was being opened for a run that will not start. */
async function closeOpening(opening: Promise<EgressRunProxy | Error> | undefined): Promise<void> {
  const opened = await opening;
  if (opened !== undefined && !(opened instanceof Error)) await opened.close();
}

/** What the egress proxy refused a networked run: logged, and named in a failed run's reason. */
function withEgressReport(result: ExecResult, refused: string[], script: string | undefined, logger: Logger | undefined): ExecResult {
  if (refused.length === 0) return result;
  logger?.warn({ script: script ?? 'shell', refused }, 'the egress proxy refused destinations of a skill');
  return result.status === 'ok' ? result : { ...result, reason: `${result.reason ?? 'the script failed'}; the network proxy refused ${refused.join(', ')}` };
}

