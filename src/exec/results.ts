// Turning what happened to a run into the ExecResult callers get.
import { performance } from 'node:perf_hooks';
import type { SupervisedRun } from './supervise.ts';
import type { ExecResult } from './types.ts';

export function toResult(run: SupervisedRun, command: string, timeoutMs: number, startedAt: number): ExecResult {
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
  if (run.stopped) return { status: 'stopped', ...ended, ...output, reason: 'the run was stopped by a person; its processes were killed' };
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

export function refusal(startedAt: number, reason: string, status: 'refused' | 'failed' | 'stopped' = 'refused'): ExecResult {
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
