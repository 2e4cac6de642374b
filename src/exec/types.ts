import type { Credential } from '../config/credentialsSchema.ts';
import type { EgressPolicy, EgressRunProxy } from './egressProxy.ts';
import type { ServiceProcess, ServiceSpec } from './serviceProcess.ts';
import type { RunTrust } from './egressCa.ts';
import type { BoundsMode } from './runCgroup.ts';
import type { WorkspaceChange } from '../workspace/workspaceTree.ts';
import type { WorkspaceMount } from '../workspace/workspaceRoom.ts';

// The one guarded way to run skill code: what callers ask for and what they get back.

/** A skill folder the run sees, read-only, at /skills/<id>: a private copy checked against `expectedHash`. */
export interface SkillMount {
  id: string;
  dir: string;
  /** The content hash a person approved (or the chat activated); required when the executor hashes folders. */
  expectedHash?: string;
}

export interface ExecRequest {
  /** The skill whose script runs (mounted at /skills/<id>; id defaults to the folder's name). */
  skillDir?: string;
  skillId?: string;
  /** Path of the script relative to skillDir. Absolute paths and `..` are refused. Exactly one of script and shell. */
  script?: string;
  /** A command line for bash -c (Claude's bash tool): runs in the workspace, no skill of its own. */
  shell?: string;
  /** Passed to argv as given, never through a shell. */
  args?: string[];
  /** Other skills the run may read (the skills loaded in the chat), each at /skills/<id>. */
  skills?: SkillMount[];
  workspace?: WorkspaceMount;
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
  /**
   * The world's `egressAllow`: address ranges (CIDR) or host names a networked run may reach through the egress
   * proxy although they are not public. Loopback and the host's own addresses stay refused whatever it says.
   */
  egressAllow?: string[];
  /**
   * The world's `credentials`: the run's `env` names hold the placeholders `skillbot-credential-<env>`; a networked
   * run's proxy sets each one's header on requests to its host (HTTPS through the installation CA, which the run trusts).
   */
  credentials?: Credential[];
  /** The chat the run is for: one chat holds at most `maxConcurrentPerChat` exec slots at once. */
  chatId?: string;
  /**
   * The content hash a person approved for `skillDir`. With the executor's `hashFolder`, the run is refused
   * without it, and what runs is a private copy that hashes to it.
   */
  expectedHash?: string;
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
  /**
   * A run without network that tried to reach somewhere: one sentence naming where and how an operator allows
   * it (`network: [<skill>]`), for the person and the model.
   */
  networkNotice?: string;
  /** With a workspace: the files the run created or changed, and what the workspace holds after it. */
  workspace?: { changes: WorkspaceChange[]; bytes: number; files: number; limitReached?: string };
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
  /**
   * Who owns a chat's workspace files on the host (the uid its sandboxes run as, when the bot is root), so
   * files the bot writes there (the person's files, the editor's) stay writable by the chat's scripts.
   */
  workspaceOwner(chatId: string): { uid: number; gid: number } | undefined;
  run(request: ExecRequest): Promise<ExecResult>;
  /** The sandbox probe's answer (made once, when the executor is created). */
  sandbox(): Promise<SandboxStatus>;
  /**
   * An egress proxy for a networked sandboxed process that is not a run (a stdio MCP server its world's `network`
   * lists): listening on `socketPath` (a file named egress.sock in a folder of its own: bind that folder at
   * /run/skillbot, SandboxLayout.egressSocket with `networked`; start the process behind innerCommand's bridge,
   * with proxyEnv()) until `close()`, which resolves with what it refused. `policy.allow` is the world's
   * `egressAllow` (the executor's own list is added).
   */
  egress(socketPath: string, policy: EgressPolicy, owner?: { uid: number; gid: number }): Promise<EgressRunProxy>;
  /**
   * For such a process with credentials: the installation CA's trust files (written once per executor, to bind as
   * SandboxLayout.trust), or why there are none (the process must then not start).
   */
  egressTrust(): Promise<RunTrust | string>;
  /**
   * Starts a long-running sandboxed process (a stdio MCP server) from the same plan as runs: bwrap, prlimit, its
   * cgroup (memory, processes, CPU), its own uid, the egress proxy when networked. Refused while the sandbox is
   * unusable, never started bare.
   */
  startService(spec: ServiceSpec): Promise<ServiceProcess | { refused: string }>;
  /** Removes the verified skill copies it keeps and ends the egress proxy process. */
  close(): void;
}
