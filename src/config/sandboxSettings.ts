// Where skill code runs and what bounds it: the sandbox (SCRIPT_*) and each chat's workspace (WORKSPACE_*), read
// from the environment.
import { choiceVar, ConfigError, intVar, optional } from './envVars.ts';

/** The resource bounds of one sandbox (src/exec/limits.ts applies them with prlimit). */
export interface SandboxLimits {
  /** Processes (and threads) alive at once for the sandbox's uid (RLIMIT_NPROC). */
  maxProcesses: number;
  /**
   * Memory of each process, in bytes: its data (heap and private mappings, RLIMIT_DATA), and its address space at
   * this plus ADDRESS_SPACE_HEADROOM (RLIMIT_AS), since node reserves address space it never uses (0.7 GiB, and
   * about 10 GiB for each WebAssembly memory).
   */
  memoryBytes: number;
  /** Largest file a process may write, in bytes (RLIMIT_FSIZE). */
  maxFileBytes: number;
  /** CPU seconds of each process (RLIMIT_CPU). */
  cpuSeconds: number;
  /**
   * Percent of one CPU the sandbox as a whole may use at once (SCRIPT_CPU_PERCENT: its cgroup's CFS quota, where the
   * host gives a cpu controller); absent: no quota, only RLIMIT_CPU.
   */
  cpuPercent?: number;
  /** Open file descriptors of each process (RLIMIT_NOFILE). */
  maxOpenFiles: number;
  /** Size of the run's HOME, a tmpfs of its own (SCRIPT_HOME_MB). */
  homeBytes: number;
  /** Size of the run's /tmp (TMPDIR), a tmpfs of its own (SCRIPT_TMP_MB). */
  tmpBytes: number;
  /** Size of the run's /dev/shm. */
  shmBytes: number;
}

const MiB = 1024 * 1024;

/** Each chat's workspace (WORKSPACE_*): where the folders live, their bounds, when an idle one is removed. */
export interface WorkspaceSettings {
  /** WORKSPACES_DIR: one folder per chat under it. */
  root: string;
  /** Whether WORKSPACES_DIR was set (a default that the sandbox cannot enter is replaced; a set one must work). */
  rootSet: boolean;
  maxBytes: number;
  maxFiles: number;
  ttlDays: number;
}

/** How skill processes are contained (SCRIPT_SANDBOX and the SCRIPT_* bounds). */
export interface SandboxSettings {
  /** `bwrap`: every skill process in bubblewrap, refused when that is unusable; `off`: bare, with a loud warning. */
  mode: 'bwrap' | 'off';
  limits: SandboxLimits;
  /** Skill processes one chat may run at once. */
  maxPerChat: number;
  /** When the bot runs as root, slot N's sandbox runs as uid and gid `uidBase + N` (SCRIPT_SANDBOX_UID_BASE). */
  uidBase: number;
  /** EGRESS_DNS_SERVERS: the servers the egress proxy's resolver asks (runs' and stdio MCP servers'); default resolv.conf. */
  egressDnsServers?: string[];
}

/** EGRESS_DNS_SERVERS: IP addresses (an optional :port), comma separated. */
function dnsServers(env: NodeJS.ProcessEnv): string[] | undefined {
  const raw = optional(env.EGRESS_DNS_SERVERS);
  if (raw === undefined) return undefined;
  const servers = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = servers.find((entry) => !/^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+)$/.test(entry));
  if (bad !== undefined) throw new ConfigError(`EGRESS_DNS_SERVERS must be IP addresses separated by commas (got "${bad}"); see .env.example.`);
  return servers;
}

export function sandboxSettings(env: NodeJS.ProcessEnv): SandboxSettings {
  return {
    mode: choiceVar(env, 'SCRIPT_SANDBOX', ['bwrap', 'off'] as const, 'bwrap'),
    limits: {
      maxProcesses: intVar(env, 'SCRIPT_MAX_PROCESSES', 256, 8, 65_536),
      memoryBytes: intVar(env, 'SCRIPT_MEMORY_MB', 1024, 64, 1_048_576) * MiB,
      maxFileBytes: intVar(env, 'SCRIPT_MAX_FILE_MB', 100, 1, 1_048_576) * MiB,
      cpuSeconds: intVar(env, 'SCRIPT_CPU_SECONDS', 60, 1, 86_400),
      ...(optional(env.SCRIPT_CPU_PERCENT) === undefined ? {} : { cpuPercent: intVar(env, 'SCRIPT_CPU_PERCENT', 100, 1, 6400) }),
      maxOpenFiles: intVar(env, 'SCRIPT_MAX_OPEN_FILES', 1024, 32, 1_048_576),
      homeBytes: intVar(env, 'SCRIPT_HOME_MB', 256, 1, 1_048_576) * MiB,
      tmpBytes: intVar(env, 'SCRIPT_TMP_MB', 256, 1, 1_048_576) * MiB,
      shmBytes: 64 * MiB,
    },
    maxPerChat: intVar(env, 'SCRIPT_MAX_PER_CHAT', 2, 1, 64),
    // Never root's or a system account's uid; room left below the 32-bit limit for every slot.
    uidBase: intVar(env, 'SCRIPT_SANDBOX_UID_BASE', 100_000, 1000, 4_294_000_000),
    ...(dnsServers(env) === undefined ? {} : { egressDnsServers: dnsServers(env) }),
  };
}

export function workspaceSettings(env: NodeJS.ProcessEnv): WorkspaceSettings {
  return {
    root: optional(env.WORKSPACES_DIR) ?? './data/workspaces',
    rootSet: optional(env.WORKSPACES_DIR) !== undefined,
    maxBytes: intVar(env, 'WORKSPACE_MAX_MB', 512, 1, 1_048_576) * MiB,
    maxFiles: intVar(env, 'WORKSPACE_MAX_FILES', 10_000, 10, 10_000_000),
    ttlDays: intVar(env, 'WORKSPACE_TTL_DAYS', 30, 1, 3650),
  };
}
