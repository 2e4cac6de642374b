// A long-running sandboxed process once started (a stdio MCP server): its pipes, how it ended (and which bound of
// its cgroup it met), and the stop that takes its whole sandbox. Started by longRunning.ts from the executor's plan.
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../ops/log.ts';
import type { Credential } from '../config/credentialsSchema.ts';
import type { EgressRunProxy } from './egressProxy.ts';
import type { SandboxLimits } from '../config/sandboxSettings.ts';
import { removeRunDirs, type RunDirs, type RunOwner } from './runDirs.ts';
import type { RunCgroup } from './runCgroup.ts';
import { GATE_FD, INFO_FD } from './sandboxInit.ts';
import { boundMet, gateIntoCgroup, initPidOf } from './serviceCgroup.ts';

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

/** What a service holds until it ends. */
export interface Held {
  dirs: RunDirs;
  owner: RunOwner | undefined;
  proxy: EgressRunProxy | undefined;
  /** Its cgroup, where the host gives one (then its first process waits at the gate until it is inside). */
  group: RunCgroup | undefined;
  limits: SandboxLimits;
}

export function launch(command: string, args: string[], env: Record<string, string>, held: Held, spec: { name: string }, logger: Logger): ServiceProcess {
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
  for (const target of [initPidOf(info), pid === undefined ? undefined : -pid]) {
    if (target === undefined) continue;
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** SCRIPT_SANDBOX=off: the process runs bare, with its own environment only (the loud warning is the bot's). */
export function startBare(spec: { name: string; command: string; args: string[]; env: Record<string, string> }, logger: Logger): ServiceProcess {
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
