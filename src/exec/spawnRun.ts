// Starts a prepared run (prlimit → bwrap → the interpreter, or the interpreter bare when the sandbox is off) and
// supervises it to its end.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Logger } from '../log.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCap.ts';
import type { CheckedRequest } from './request.ts';
import { toResult } from './results.ts';
import type { PreparedRun } from './runPlan.ts';
import { supervise } from './supervise.ts';
import type { ExecResult } from './types.ts';

export interface SpawnSettings {
  timeoutMs: number;
  killGraceMs?: number;
  maxOutputBytes?: number;
  signal?: AbortSignal;
  logger?: Logger;
  startedAt: number;
}

const DEFAULT_KILL_GRACE_MS = 2000;

/**
 * Inside the sandbox the interpreter is missing when bwrap says so: the sandbox starts, then exec fails.
 * bwrap then exits 1 with "bwrap: execvp NAME: No such file or directory".
 */
const BWRAP_EXEC_FAILED = /^bwrap: execvp (\S+): (.+)$/m;

export async function spawnPrepared(prepared: PreparedRun, request: CheckedRequest, settings: SpawnSettings): Promise<ExecResult> {
  // node's own spawn: execa's stdio machinery costs several ms per run and we read the pipes ourselves anyway.
  const child = spawn(prepared.command, prepared.args, {
    shell: false,
    cwd: prepared.cwd,
    // bwrap is PID 1 in the sandbox and its environ is readable there: it gets the allowlisted environment only.
    env: prepared.env,
    detached: true,
    ...(prepared.owner === undefined ? {} : { uid: prepared.owner.uid, gid: prepared.owner.gid }),
    stdio: [request.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (request.stdin !== undefined && child.stdin !== null) {
    // A script that never reads its stdin closes the pipe: EPIPE is its choice, not our failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin);
  }
  const run = await supervise(child, {
    timeoutMs: settings.timeoutMs,
    killGraceMs: settings.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxOutputBytes: settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    abortSignal: settings.signal,
    onSignalError: (error) => settings.logger?.warn({ err: error, script: request.script }, 'could not signal a skill process group'),
  });
  const result = toResult(run, prepared.interpreter, settings.timeoutMs, settings.startedAt);
  return prepared.sandboxed ? asBwrapReported(result) : result;
}

/** bwrap reports what happened inside in its own words: turn them back into what a bare run would say. */
function asBwrapReported(result: ExecResult): ExecResult {
  if (result.status !== 'failed' || result.exitCode === null) return result;
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
