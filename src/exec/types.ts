// The one guarded way to run skill code: what callers ask for and what they get back.

export interface ExecRequest {
  /** The skill folder; the script must resolve (realpath) inside it. It is also the working directory. */
  skillDir: string;
  /** Path of the script relative to skillDir. Absolute paths and `..` are refused. */
  script: string;
  /** Passed to argv as given, never through a shell. */
  args?: string[];
  /** Extra variables the world's config passes to this skill; nothing else of the parent leaks through. */
  env?: Record<string, string>;
  /** Written to stdin then closed; without it stdin is closed at once. Hooks use it for their event JSON. */
  stdin?: string;
  /** Defaults to the executor's timeout (SCRIPT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Bytes kept of stdout and of stderr each; defaults to 64 KiB. */
  maxOutputBytes?: number;
}

export type ExecStatus = 'ok' | 'failed' | 'timeout' | 'refused';

/** A child's failure is a result, never a thrown exception. */
export interface ExecResult {
  status: ExecStatus;
  /** null when refused or killed by a signal. */
  exitCode: number | null;
  signal?: string;
  durationMs: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Bytes counted and dropped past the cap. */
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
  /** Why it was refused or failed to start, in one sentence. */
  reason?: string;
}

export interface Executor {
  run(request: ExecRequest): Promise<ExecResult>;
}
