// Starts a prepared run (prlimit → bwrap → the interpreter, or the interpreter bare when the sandbox is off) and
// supervises it to its end.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { RunCgroup } from './runCgroup.ts';
import type { Logger } from '../ops/log.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCap.ts';
import type { CheckedRequest } from './request.ts';
import { toResult } from './results.ts';
import type { PreparedRun } from './runPlan.ts';
import { GATE_FD, INFO_FD, REPORT_FD, fullMounts, networkOffSentence, triedWithoutNetwork } from './sandboxInit.ts';
import { supervise } from './supervise.ts';
import type { ExecResult } from './types.ts';

export interface SpawnSettings {
  timeoutMs: number;
  killGraceMs?: number;
  maxOutputBytes?: number;
  signal?: AbortSignal;
  logger?: Logger;
  startedAt: number;
  /** Words for a sandbox mount found full (limits.mountBound). */
  mountBound?: (mount: string) => string;
  /** Where runs get cgroups: the run's own, and the words for the bounds it can hit. */
  cgroup?: { group: RunCgroup; memory: string; processes: string };
  /**
   * In cgroup mode, what the gate also waits for (the run's egress proxy listening): undefined when ready, else why
   * the run must not start.
   */
  ready?: Promise<string | undefined>;
}

const DEFAULT_KILL_GRACE_MS = 2000;
/** How often a run's cgroup counters are read for a bound hit (two small reads). */
const BOUND_POLL_MS = 100;

/**
 * Inside the sandbox the interpreter is missing when bwrap says so: the sandbox starts, then exec fails.
 * bwrap then exits 1 with "bwrap: execvp NAME: No such file or directory".
 */
const BWRAP_EXEC_FAILED = /^bwrap: execvp (\S+): (.+)$/m;

export async function spawnPrepared(prepared: PreparedRun, request: CheckedRequest, settings: SpawnSettings): Promise<ExecResult> {
  // node's own spawn: execa's stdio machinery costs several ms per run and we read the pipes ourselves anyway.
  // A sandboxed run has two more pipes: the wrapper's report of full mounts (fd 3) and bwrap's --info-fd (fd 4);
  // in cgroup mode a third, the gate (fd 5) its first process waits on.
  const extra = prepared.sandboxed ? (settings.cgroup === undefined ? (['pipe', 'pipe'] as const) : (['pipe', 'pipe', 'pipe'] as const)) : ([] as const);
  const child = spawn(prepared.command, prepared.args, {
    shell: false,
    cwd: prepared.cwd,
    // Everything inside, PID 1 included, inherits this environ, readable there: the allowlisted environment only.
    env: prepared.env,
    detached: true,
    ...(prepared.owner === undefined ? {} : { uid: prepared.owner.uid, gid: prepared.owner.gid }),
    stdio: [request.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...extra],
  });
  if (request.stdin !== undefined && child.stdin !== null) {
    // A script that never reads its stdin closes the pipe: EPIPE is its choice, not our failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin);
  }
  const report = collect(child.stdio[REPORT_FD] as Readable | undefined);
  const info = collect(child.stdio[INFO_FD] as Readable | undefined);
  const joined = settings.cgroup === undefined ? undefined : joinCgroup((child.stdio as unknown as (Writable | null | undefined)[])[GATE_FD], info, settings.cgroup.group, request, settings.logger, settings.ready);
  // A run whose cgroup bound was hit is stopped as a whole: the kernel killed one of its processes (or refused a
  // fork), and what is left would carry on with a part missing.
  const boundHit = new AbortController();
  const group = settings.cgroup?.group;
  const watch = group === undefined ? undefined : setInterval(() => {
    const hit = group.hit();
    if (hit.memory || hit.processes) boundHit.abort();
  }, BOUND_POLL_MS);
  const run = await supervise(child, {
    timeoutMs: settings.timeoutMs,
    killGraceMs: settings.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxOutputBytes: settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    abortSignal: settings.signal === undefined ? boundHit.signal : AbortSignal.any([settings.signal, boundHit.signal]),
    onSignalError: (error) => settings.logger?.warn({ err: error, script: request.script }, 'could not signal a skill process group'),
    ...(prepared.sandboxed ? { killSandbox: () => killInit(info.text()) } : {}),
  });
  clearInterval(watch);
  const notJoined = await joined;
  const result = toResult(run, prepared.interpreter, settings.timeoutMs, settings.startedAt);
  if (!prepared.sandboxed) return result;
  if (notJoined !== undefined) return { ...result, status: 'failed', exitCode: null, reason: notJoined };
  let reported = asBwrapReported(result);
  const hit = group?.hit();
  if (settings.cgroup !== undefined && hit !== undefined && settings.signal?.aborted !== true) {
    const bounds = [...(hit.memory ? [settings.cgroup.memory] : []), ...(hit.processes ? [settings.cgroup.processes] : [])];
    // Even a run that ended 0 lost a process to the bound: it failed, and says which bound.
    if (bounds.length > 0) reported = { ...reported, status: 'failed', reason: bounds.join('; ') };
  }
  // The wrapper reports full mounts when the script failed; a run without network's refuser, where it tried to go.
  const reportText = result.status === 'ok' && prepared.offFor === undefined ? '' : await report.done();
  const tried = prepared.offFor === undefined ? [] : triedWithoutNetwork(reportText);
  const notice = prepared.offFor === undefined ? undefined : networkOffSentence(prepared.offFor, tried);
  if (notice !== undefined) reported = { ...reported, networkNotice: notice };
  const full = result.status === 'ok' ? [] : fullMounts(reportText);
  if (full.length === 0 || settings.mountBound === undefined) return reported;
  const bounds = full.map(settings.mountBound).join('; ');
  return { ...reported, reason: `${reported.reason ?? 'the script failed'}; ${bounds}` };
}

/**
 * Moves the sandbox's first process (bwrap names it on --info-fd) into the run's cgroup while it waits at the gate,
 * then opens the gate. The kernel's wait for joining a cgroup thus overlaps bwrap setting up the sandbox. A process
 * that cannot be moved is killed: never run outside its bounds.
 */
async function joinCgroup(
  gate: Writable | null | undefined,
  info: Collected,
  group: RunCgroup,
  request: CheckedRequest,
  logger: Logger | undefined,
  ready?: Promise<string | undefined>,
): Promise<string | undefined> {
  gate?.on('error', () => undefined);
  const pid = sandboxInitPid(await info.until((text) => sandboxInitPid(text) !== undefined));
  if (pid === undefined) {
    // bwrap ended before starting anything: nothing to hold.
    gate?.destroy();
    return undefined;
  }
  try {
    await group.add(pid);
    const notReady = await ready;
    if (notReady !== undefined) {
      killInit(info.text());
      gate?.destroy();
      return notReady;
    }
    gate?.end('\n');
    return undefined;
  } catch (error) {
    killInit(info.text());
    gate?.destroy();
    logger?.warn({ err: error, script: request.script }, 'could not move a run into its cgroup');
    return `the run could not be moved into its cgroup (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so it was ended before the script started`;
  }
}

interface Collected {
  text: () => string;
  done: () => Promise<string>;
  /** Resolves with the text once `ready` says so, or when the pipe closes. */
  until: (ready: (text: string) => boolean) => Promise<string>;
}

/** The text a pipe carries, kept small (bwrap's info JSON, the wrapper's few report lines). */
function collect(stream: Readable | undefined): Collected {
  let text = '';
  const waiting = new Set<() => void>();
  const closed =
    stream === undefined
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          stream.on('data', (chunk: Buffer) => {
            if (text.length < 4096) text += chunk.toString('utf8');
            for (const wake of waiting) wake();
          });
          stream.on('error', () => resolve());
          stream.once('close', () => resolve());
        });
  const until = (ready: (text: string) => boolean) =>
    new Promise<string>((resolve) => {
      const check = () => {
        if (!ready(text)) return;
        waiting.delete(check);
        resolve(text);
      };
      waiting.add(check);
      check();
      void closed.then(() => {
        waiting.delete(check);
        resolve(text);
      });
    });
  // Every process of the sandbox is gone when this is asked: the pipe closes at once, or never will.
  const done = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, 200).unref())]).then(() => text);
  return { text: () => text, done, until };
}

/** The host pid of the sandbox's init, from bwrap's info JSON. */
function sandboxInitPid(info: string): number | undefined {
  const pid = Number(/"child-pid":\s*(\d+)/.exec(info)?.[1]);
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** SIGKILLs the sandbox's init named in bwrap's info JSON; the PID namespace dies with it. */
function killInit(info: string): boolean {
  const pid = sandboxInitPid(info);
  if (pid === undefined) return false;
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/** bwrap reports what happened inside in its own words: turn them back into what a bare run would say. */
function asBwrapReported(result: ExecResult): ExecResult {
  if (result.exitCode === null) return result;
  if (result.status === 'timeout' || result.status === 'stopped') {
    // The sandbox's init was killed (see supervise's killSandbox): bwrap outside then exits 128+9.
    const signal = signalNamed(result.exitCode - 128);
    return signal === undefined ? result : { ...result, exitCode: null, signal };
  }
  if (result.status !== 'failed') return result;
  const execFailed = result.exitCode === 1 ? BWRAP_EXEC_FAILED.exec(result.stderr) : null;
  if (execFailed !== null) {
    const [, program, why = ''] = execFailed;
    const reason = /No such file/.test(why)
      ? `the interpreter "${program}" was not found`
      : /Permission denied/.test(why)
        ? `permission denied when starting "${program}"`
        : `the script could not be started: ${why}`;
    return { ...result, exitCode: null, reason };
  }
  const signal = signalNamed(result.exitCode - 128);
  if (signal === undefined) return result;
  return { ...result, exitCode: null, signal, reason: `the script was killed by ${signal}` };
}

function signalNamed(number: number): string | undefined {
  if (number <= 0) return undefined;
  return Object.entries(constants.signals).find(([, value]) => value === number)?.[0];
}
