// The one guarded way skillbot runs skill code: contained path, chosen interpreter, allowlisted environment,
// argv without a shell, bounded output, a timeout that takes the whole process group, a bound on concurrency.
import { execa } from 'execa';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.ts';
import { childEnv } from './childEnv.ts';
import { containScript } from './containment.ts';
import { interpreterFor, readFirstLine } from './interpreter.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCap.ts';
import { checkRequest, type CheckedRequest } from './request.ts';
import { createRunDirs, removeRunDirs, type RunDirs } from './runDirs.ts';
import { Semaphore } from './semaphore.ts';
import { supervise, type SupervisedRun } from './supervise.ts';
import type { ExecRequest, ExecResult, Executor } from './types.ts';

export interface ExecutorOptions {
  /** SCRIPT_TIMEOUT_MS: a run is then killed with its whole process group. */
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each (default 64 KiB). */
  maxOutputBytes?: number;
  /** Runs at once; more wait in order (default 4). */
  maxConcurrent?: number;
  /** Between SIGTERM and SIGKILL at the timeout (default 2000 ms). */
  killGraceMs?: number;
  logger?: Logger;
}

const DEFAULT_MAX_CONCURRENT = 4;
const DEFAULT_KILL_GRACE_MS = 2000;

export function createExecutor(options: ExecutorOptions): Executor {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new RangeError(`the script timeout must be a positive number of ms, got ${options.timeoutMs}`);
  }
  const slots = new Semaphore(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT);
  const logger = options.logger;

  return {
    async run(request: ExecRequest): Promise<ExecResult> {
      const queuedAt = performance.now();
      const release = await slots.acquire();
      const startedAt = performance.now();
      let result: ExecResult;
      try {
        result = await runGuarded(request, options, startedAt);
      } catch (error) {
        // Our own fault (e.g. the temp folder could not be made): still a result, never a throw.
        result = refusal(startedAt, `could not run the script: ${(error as Error).message}`, 'failed');
      } finally {
        release();
      }
      const queuedMs = Math.round(startedAt - queuedAt);
      const fields = { script: request.script, status: result.status, exitCode: result.exitCode, durationMs: result.durationMs, queuedMs };
      if (result.status === 'ok') logger?.debug(fields, 'skill script finished');
      else logger?.warn({ ...fields, reason: result.reason }, 'skill script did not succeed');
      return result;
    },
  };
}

async function runGuarded(raw: ExecRequest, options: ExecutorOptions, startedAt: number): Promise<ExecResult> {
  const checked = checkRequest(raw);
  if (!checked.ok) return refusal(startedAt, checked.reason);
  const request = checked.request;
  const dirs = await createRunDirs();
  try {
    return await spawnContained(request, dirs, options, startedAt);
  } finally {
    const failure = await removeRunDirs(dirs);
    if (failure !== undefined) options.logger?.warn({ err: failure, dir: dirs.root }, 'could not remove a run folder');
  }
}

async function spawnContained(
  request: CheckedRequest,
  dirs: RunDirs,
  options: ExecutorOptions,
  startedAt: number,
): Promise<ExecResult> {
  // Checked right before spawning, and the real path is what runs.
  const contained = await containScript(request.skillDir, request.script);
  if (!contained.ok) return refusal(startedAt, contained.reason);
  const interpreter = interpreterFor(contained.scriptPath, await readFirstLine(contained.scriptPath), {
    executable: contained.executable,
  });
  if (!interpreter.ok) return refusal(startedAt, interpreter.reason);

  const timeoutMs = request.timeoutMs ?? options.timeoutMs;
  const child = execa(interpreter.command, [...interpreter.args, ...request.args], {
    shell: false,
    cwd: contained.skillDir,
    env: childEnv(process.env, request.env, dirs),
    extendEnv: false,
    detached: true,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    ...(request.stdin === undefined ? { stdin: 'ignore' as const } : { input: request.stdin }),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const run = await supervise(child, {
    timeoutMs,
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxOutputBytes: request.maxOutputBytes ?? options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    onSignalError: (error) => options.logger?.warn({ err: error, script: request.script }, 'could not signal a skill process group'),
  });
  // execa's own promise settles too (reject: false); it carries nothing we have not seen.
  await child.catch(() => undefined);
  return toResult(run, interpreter.command, timeoutMs, startedAt);
}

function toResult(run: SupervisedRun, command: string, timeoutMs: number, startedAt: number): ExecResult {
  const output = {
    durationMs: elapsed(startedAt),
    stdout: run.stdout.text,
    stderr: run.stderr.text,
    stdoutTruncated: run.stdout.truncated,
    stderrTruncated: run.stderr.truncated,
    stdoutDroppedBytes: run.stdout.droppedBytes,
    stderrDroppedBytes: run.stderr.droppedBytes,
  };
  const ended = { exitCode: run.exitCode, ...(run.signal === null ? {} : { signal: run.signal }) };
  if (run.spawnError !== undefined) {
    return { status: 'failed', exitCode: null, ...output, reason: startFailure(run.spawnError, command) };
  }
  if (run.timedOut) {
    const reason = run.exitedBeforeTimeout
      ? `the script exited but processes it left in the background kept its output open past ${timeoutMs} ms; they were killed`
      : `the script ran past ${timeoutMs} ms and was killed with its child processes`;
    return { status: 'timeout', ...ended, ...output, reason };
  }
  if (run.exitCode === 0) return { status: 'ok', ...ended, ...output };
  const reason = run.signal !== null ? `the script was killed by ${run.signal}` : `the script exited with code ${run.exitCode}`;
  return { status: 'failed', ...ended, ...output, reason };
}

function startFailure(error: NodeJS.ErrnoException, command: string): string {
  if (error.code === 'ENOENT') return `the interpreter "${command}" was not found`;
  if (error.code === 'EACCES') return `permission denied when starting "${command}"`;
  return `the script could not be started: ${error.code ?? error.message}`;
}

function refusal(startedAt: number, reason: string, status: 'refused' | 'failed' = 'refused'): ExecResult {
  return {
    status,
    exitCode: null,
    durationMs: elapsed(startedAt),
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    stdoutDroppedBytes: 0,
    stderrDroppedBytes: 0,
    reason,
  };
}

function elapsed(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}
