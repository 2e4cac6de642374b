// Starts a prepared run (prlimit → bwrap → the interpreter, or the interpreter bare when the sandbox is off) and
// supervises it to its end.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { RunCgroup } from './runCgroup.ts';
import type { Logger } from '../log.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCap.ts';
import type { CheckedRequest } from './request.ts';
import { toResult } from './results.ts';
import type { PreparedRun } from './runPlan.ts';
import { INFO_FD, REPORT_FD, fullMounts } from './sandboxInit.ts';
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
}

// Holds the run until the bot has moved it into its cgroup (fd 5 closes), so nothing forks outside it first.
const GATE = ['/bin/sh', '-c', 'read -r _ <&5; exec 5<&-; exec "$@"', 'skillbot-gate'];
const GATE_FD = 5;

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
  // A sandboxed run has two more pipes: the wrapper's report of full mounts (fd 3) and bwrap's --info-fd (fd 4).
  const extra = prepared.sandboxed ? (settings.cgroup === undefined ? (['pipe', 'pipe'] as const) : (['pipe', 'pipe', 'pipe'] as const)) : ([] as const);
  const [command, args] = settings.cgroup === undefined ? [prepared.command, prepared.args] : [GATE[0] as string, [...GATE.slice(1), prepared.command, ...prepared.args]];
  const child = spawn(command, args, {
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
  if (settings.cgroup !== undefined) {
    const gate = (child.stdio as unknown as (Writable | null | undefined)[])[GATE_FD] ?? undefined;
    gate?.on('error', () => undefined);
    try {
      if (child.pid === undefined) throw new Error('the run did not start');
      await settings.cgroup.group.add(child.pid);
      gate?.end('\n');
    } catch (error) {
      // Never run it outside its bounds.
      child.kill('SIGKILL');
      gate?.destroy();
      settings.logger?.warn({ err: error, script: request.script }, 'could not move a run into its cgroup');
    }
  }
  const report = collect(child.stdio[REPORT_FD] as Readable | undefined);
  const info = collect(child.stdio[INFO_FD] as Readable | undefined);
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
  const result = toResult(run, prepared.interpreter, settings.timeoutMs, settings.startedAt);
  if (!prepared.sandboxed) return result;
  let reported = asBwrapReported(result);
  const hit = group?.hit();
  if (settings.cgroup !== undefined && hit !== undefined && settings.signal?.aborted !== true) {
    const bounds = [...(hit.memory ? [settings.cgroup.memory] : []), ...(hit.processes ? [settings.cgroup.processes] : [])];
    // Even a run that ended 0 lost a process to the bound: it failed, and says which bound.
    if (bounds.length > 0) reported = { ...reported, status: 'failed', reason: bounds.join('; ') };
  }
  const full = result.status === 'ok' ? [] : fullMounts(await report.done());
  if (full.length === 0 || settings.mountBound === undefined) return reported;
  const bounds = full.map(settings.mountBound).join('; ');
  return { ...reported, reason: `${reported.reason ?? 'the script failed'}; ${bounds}` };
}

/** The text a pipe carries, kept small (bwrap's info JSON, the wrapper's few report lines). */
function collect(stream: Readable | undefined): { text: () => string; done: () => Promise<string> } {
  let text = '';
  const closed =
    stream === undefined
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          stream.on('data', (chunk: Buffer) => {
            if (text.length < 4096) text += chunk.toString('utf8');
          });
          stream.on('error', () => resolve());
          stream.once('close', () => resolve());
        });
  // Every process of the sandbox is gone when this is asked: the pipe closes at once, or never will.
  const done = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, 200).unref())]).then(() => text);
  return { text: () => text, done };
}

/** SIGKILLs the sandbox's init named in bwrap's info JSON; the PID namespace dies with it. */
function killInit(info: string): boolean {
  const pid = Number(/"child-pid":\s*(\d+)/.exec(info)?.[1]);
  if (!Number.isInteger(pid) || pid <= 1) return false;
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
