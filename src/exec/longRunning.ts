// A long-lived sandboxed process with its stdin and stdout as pipes (an MCP server over stdio): the same bwrap,
// prlimit, identity files and egress bridge as a skill run, but kept running until the caller closes it. Only the
// named host folders are seen (read-only), beside the host's system folders; the environment is the caller's alone.
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../ops/log.ts';
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import type { Credential } from '../config/credentialsSchema.ts';
import { type RunTrust, trustEnv } from './egressCa.ts';
import { placeholderOf } from './egressCredentials.mjs';
import type { EgressPolicy, EgressRunProxy } from './egressProxy.ts';
import type { SandboxLimits } from '../config/sandboxSettings.ts';
import { DEFAULT_LIMITS, prlimitArgs, tasksOfUid } from './limits.ts';
import { createRunDirs, removeRunDirs, type RunDirs, type RunOwner } from './runDirs.ts';
import { bwrapArgs, sandboxEnv, systemMounts } from './sandbox.ts';
import { createRunCgroup, type RunCgroup } from './runCgroup.ts';
import { GATE_FD, INFO_FD, innerCommand, proxyEnv } from './sandboxInit.ts';
import { boundMet, gateIntoCgroup } from './serviceCgroup.ts';
import type { SandboxStatus } from './types.ts';

/** What to start: a command of the host (its folder, and each folder named in `readOnly`, are seen read-only). */
export interface ServiceSpec {
  /** For logs ("mcp everything for slack:T1:C1"). */
  name: string;
  command: string;
  args: string[];
  /** The process's whole environment, beside PATH, LANG, HOME and TMPDIR of the sandbox. */
  env: Record<string, string>;
  /** Host folders bound read-only at the same path inside. */
  readOnly: string[];
  /** Reaches public addresses through the egress proxy; otherwise no network at all. */
  network: boolean;
  /** Private ranges or host names the proxy lets it reach too (the world's `egressAllow`). */
  egressAllow?: string[];
  /** The world's `credentials`: placeholders in `env`; a networked service's proxy sets their values. */
  credentials?: Credential[];
  /** Stable key for the sandbox uid (as root): one uid per service. */
  owner: string;
  /** Memory for the whole service (its cgroup, where the host gives one) and each of its processes; default the runs'. */
  memoryBytes?: number;
}

export interface ServiceProcess {
  stdin: Writable;
  stdout: Readable;
  /** Resolves once with how it ended, and which bound of its cgroup it met, if one. */
  exited: Promise<{ code: number | null; signal: string | null; bound?: string }>;
  /** Ends the whole sandbox (its PID namespace) and removes its folders. */
  stop(): Promise<void>;
}

export interface ServiceLauncherOptions {
  mode: 'bwrap' | 'off';
  limits?: Partial<SandboxLimits>;
  uidBase?: number;
  bwrapPath?: string;
  prlimitPath?: string;
  nodePath?: string;
  /** The executor's probe: a service is refused while the sandbox is unusable, never run bare. */
  sandbox: () => Promise<SandboxStatus>;
  /**
   * The executor's egress opener (Executor.egress): a networked service's proxy runs in the same egress process as
   * skill runs', with the world's `egressAllow`.
   */
  egress?: (socketPath: string, policy: EgressPolicy, owner?: { uid: number; gid: number }) => Promise<EgressRunProxy>;
  /** The executor's trust files (Executor.egressTrust), for a networked service with credentials. */
  egressTrust?: (dir: string) => Promise<RunTrust | string>;
  logger: Logger;
}

export interface ServiceLauncher {
  start(spec: ServiceSpec): Promise<ServiceProcess | { refused: string }>;
}

/** Services' uids sit above the chats' (executor.ts: base + 1024 … base + 61024). */
const SERVICE_UID_OFFSET = 62_000;
const SERVICE_UID_SPREAD = 2000;

function serviceUidOffset(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return SERVICE_UID_OFFSET + (hash % SERVICE_UID_SPREAD);
}

/**
 * The folders a command line needs to see: for each absolute path, its folder; for a file inside a package, the
 * outermost `node_modules` holding it (so the package's own dependencies resolve). Resolved through links, and
 * named at the path as written too, so either spelling works inside.
 */
export function foldersToSee(command: string, args: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const word of [command, ...args]) {
    if (!path.isAbsolute(word)) continue;
    for (const spelling of new Set([word, realpathOr(word)])) {
      const parts = spelling.split('/');
      const modules = parts.indexOf('node_modules');
      const folder = modules > 0 ? parts.slice(0, modules + 1).join('/') : isDirectory(spelling) ? spelling : path.dirname(spelling);
      if (folder !== '/' && folder !== '') folders.add(folder);
    }
  }
  return [...folders].sort();
}

export function createServiceLauncher(options: ServiceLauncherOptions): ServiceLauncher {
  const root = process.getuid?.() === 0;
  const configured: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const limits = root || options.mode === 'off' ? configured : { ...configured, maxProcesses: configured.maxProcesses + tasksOfUid(process.getuid?.() ?? -1) };
  const nodePath = options.nodePath ?? process.execPath;
  const system = options.mode === 'bwrap' ? systemMounts(nodePath) : [];
  const uidBase = options.uidBase ?? 100_000;
  return {
    async start(spec) {
      if (options.mode === 'off') return startBare(spec, options.logger);
      const status = await options.sandbox();
      if (!status.usable) return { refused: `the sandbox is unusable: ${status.problem}. To fix: ${status.fix}` };
      if (spec.network && status.mode === 'bwrap' && status.network !== undefined) {
        return { refused: `it may use the network, but the sandbox cannot give it a safe way out: ${status.network.problem}` };
      }
      const owner: RunOwner | undefined = root ? { uid: uidBase + serviceUidOffset(spec.owner), gid: uidBase + serviceUidOffset(spec.owner) } : undefined;
      const bounded = { ...limits, memoryBytes: spec.memoryBytes ?? limits.memoryBytes };
      let group: RunCgroup | undefined;
      if (status.mode === 'bwrap' && status.bounds.kind === 'cgroup') {
        try {
          group = createRunCgroup(status.bounds, { memoryBytes: bounded.memoryBytes, maxProcesses: bounded.maxProcesses });
        } catch (error) {
          return { refused: `its cgroup could not be made (${(error as Error).message}), so it was not started unbounded` };
        }
      }
      const dirs = createRunDirs(owner);
      let proxy: EgressRunProxy | undefined;
      try {
        // Alone in a folder of its own, bound at /run/skillbot: the egress process makes the socket (mode 0600, the
        // service's user) and serves it, out of the bot's process.
        const egressSocket = spec.network ? egressSocketIn(dirs.root, owner) : undefined;
        if (egressSocket !== undefined) {
          if (options.egress === undefined) {
            await group?.remove();
            return { refused: 'it may use the network, but no egress proxy is available here' };
          }
          proxy = await options.egress(egressSocket, { name: spec.name, allow: spec.egressAllow ?? [], credentials: spec.credentials ?? [] }, owner);
        }
        const credentials = spec.credentials ?? [];
        const trust = egressSocket !== undefined && credentials.length > 0 ? await (options.egressTrust?.(path.join(dirs.root, 'ca')) ?? 'no installation CA is available here') : undefined;
        if (typeof trust === 'string') {
          await group?.remove();
          await proxy?.close();
          void removeRunDirs(dirs);
          return { refused: `its world gives it credentials, but ${trust}` };
        }
        const layout = {
          skills: [],
          cwd: SANDBOX_PATHS.home,
          sizes: { home: limits.homeBytes, tmp: limits.tmpBytes, shm: limits.shmBytes },
          passwd: dirs.passwd,
          group: dirs.group,
          egressSocket,
          networked: spec.network,
          ...(trust === undefined ? {} : { trust }),
          infoFd: INFO_FD,
        };
        const seen = spec.readOnly.flatMap((dir) => ['--ro-bind', dir, dir]);
        const inner = innerCommand([spec.command, ...spec.args], spec.network ? { nodePath } : undefined, group !== undefined);
        const args = [...prlimitArgs(bounded), '--', options.bwrapPath ?? 'bwrap', ...bwrapArgs(layout, [...system, ...seen]), '--', ...inner];
        const placeholders = Object.fromEntries(credentials.map((credential) => [credential.env, placeholderOf(credential.env)]));
        const env = { ...sandboxEnv(process.env, { ...spec.env, ...placeholders }, false), ...(spec.network ? proxyEnv() : {}), ...(trust === undefined ? {} : trustEnv()) };
        return launch(options.prlimitPath ?? 'prlimit', args, env, { dirs, owner, proxy, group, limits: bounded }, spec, options.logger);
      } catch (error) {
        await group?.remove();
        await proxy?.close();
        void removeRunDirs(dirs);
        return { refused: `it could not be started: ${(error as Error).message}` };
      }
    },
  };
}

interface Held {
  dirs: RunDirs;
  owner: RunOwner | undefined;
  proxy: EgressRunProxy | undefined;
  /** Its cgroup, where the host gives one (then its first process waits at the gate until it is inside). */
  group: RunCgroup | undefined;
  limits: SandboxLimits;
}

function launch(command: string, args: string[], env: Record<string, string>, held: Held, spec: ServiceSpec, logger: Logger): ServiceProcess {
  const { dirs, owner, proxy, group } = held;
  // fd 3: the wrapper's report of full mounts (unread here); fd 4: bwrap's info JSON, naming the sandbox's init;
  // fd 5 (cgroup mode): the gate.
  const child = spawn(command, args, {
    shell: false,
    cwd: dirs.root,
    env,
    detached: true,
    ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }),
    stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', ...(group === undefined ? [] : (['pipe'] as const))],
  });
  let info = '';
  const infoStream = child.stdio[INFO_FD] as Readable;
  infoStream.on('data', (chunk: Buffer) => {
    if (info.length < 4096) info += chunk.toString('utf8');
  });
  if (group !== undefined) gateIntoCgroup(infoStream, (child.stdio as unknown as Writable[])[GATE_FD]!, group, () => killSandbox(info, child.pid), logger, spec.name);
  (child.stdio[3] as Readable).resume();
  logStderr(child.stderr, spec.name, logger);
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: string | null; bound?: string }>((resolve) => {
    child.once('error', (error) => {
      logger.warn({ err: error, service: spec.name }, 'a sandboxed service could not be started');
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => {
      const bound = boundMet(group, held.limits.memoryBytes, held.limits.maxProcesses);
      resolve({ code, signal, ...(bound === undefined ? {} : { bound }) });
    });
  });
  let stopped: Promise<void> | undefined;
  const cleanup = async () => {
    await proxy?.close();
    await group?.remove();
    await removeRunDirs(dirs);
  };
  void exited.then(() => (stopped === undefined ? cleanup() : undefined));
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    stop() {
      stopped ??= (async () => {
        killSandbox(info, child.pid);
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
        await cleanup();
      })();
      return stopped;
    },
  };
}

/** SIGKILLs the sandbox's init (its PID namespace dies with it) and the process group outside. */
function killSandbox(info: string, pid: number | undefined): void {
  const init = Number(/"child-pid":\s*(\d+)/.exec(info)?.[1]);
  for (const target of [Number.isInteger(init) && init > 1 ? init : undefined, pid === undefined ? undefined : -pid]) {
    if (target === undefined) continue;
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** SCRIPT_SANDBOX=off: the process runs bare, with its own environment only (the loud warning is the bot's). */
function startBare(spec: ServiceSpec, logger: Logger): ServiceProcess {
  const child = spawn(spec.command, spec.args, { shell: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...spec.env }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  logStderr(child.stderr, spec.name, logger);
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('error', () => resolve({ code: null, signal: null }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    async stop() {
      killSandbox('', child.pid);
      await exited;
    },
  };
}

/** A service's stderr goes to the log, a line at a time and bounded, never to a chat. */
function logStderr(stderr: Readable, name: string, logger: Logger): void {
  let pending = '';
  stderr.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = (lines.pop() ?? '').slice(-4096);
    for (const line of lines) if (line.trim() !== '') logger.info({ service: name, stderr: line.slice(0, 2000) }, 'service stderr');
  });
}

function realpathOr(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/** A networked service's egress socket path, alone in a folder of its own (bound into the sandbox). */
function egressSocketIn(root: string, owner: RunOwner | undefined): string {
  const dir = path.join(root, 'egress');
  mkdirSync(dir, { mode: 0o700 });
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  return path.join(dir, 'egress.sock');
}
