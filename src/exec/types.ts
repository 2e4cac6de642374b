import type { BoundsMode } from './runCgroup.ts';
// The one guarded way to run skill code: what callers ask for and what they get back.

export interface ExecRequest {
  /** The skill folder; the script must resolve (realpath) inside it. Mounted read-only as the working directory. */
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
  /**
   * Whether the process may reach the network (the world's `network` setting). Default false: no network at all.
   * Even then it never shares the host's network: it reaches public addresses only, through the egress proxy.
   */
  network?: boolean;
  /** The chat the run is for: one chat holds at most `maxConcurrentPerChat` exec slots at once. */
  chatId?: string;
  /**
   * The content hash a person approved. With the executor's `hashFolder`, the run is refused without it, and the
   * skill folder is copied, the copy hashed and compared, and the copy (read-only) is what runs.
   */
  expectedHash?: string;
  /** A host folder whose files the script reads (read-only) in the folder named by `SKILLBOT_INPUT_DIR`. */
  inputDir?: string;
  /** A host folder that receives, after the run, the regular files the script wrote into `SKILLBOT_OUTPUT_DIR`. */
  outputDir?: string;
  /** Aborting it (a person pressed Stop) ends the whole sandbox at once; the result is `stopped`. */
  signal?: AbortSignal;
}

/**
 * ExecutorOptions.hashFolder: the content hash of a folder by the skill registry's own algorithm
 * (SkillRegistry.hashFolder), or why it has none (a symlink leading out, over a bound).
 */
export type HashFolder = (dir: string) => Promise<{ hash: string } | { error: string }>;

export type ExecStatus = 'ok' | 'failed' | 'timeout' | 'refused' | 'stopped';

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
  /** Why it was refused, stopped or failed, in one sentence (a refusal says what to do). */
  reason?: string;
}

/** Whether skill processes can run sandboxed here, found once by a tiny bwrap run. */
export type SandboxStatus =
  | {
      mode: 'bwrap';
      usable: true;
      /** What every skill process is cut off from or bounded by, for `doctor`. */
      isolates: string[];
      /** How memory and processes are bounded: a cgroup per run, or rlimits per process (and why). */
      bounds: BoundsMode;
      /** Set when networked runs cannot be given their egress bridge: they are then refused with this. */
      network?: { problem: string; fix: string };
    }
  | { mode: 'bwrap'; usable: false; /** What failed. */ problem: string; /** What the operator should do. */ fix: string }
  | { mode: 'off'; usable: true; isolates: string[] };

export interface Executor {
  run(request: ExecRequest): Promise<ExecResult>;
  /** The sandbox probe's answer (made once, when the executor is created). */
  sandbox(): Promise<SandboxStatus>;
}
