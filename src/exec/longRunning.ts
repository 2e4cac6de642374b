// A long-lived sandboxed process with its stdin and stdout as pipes (an MCP server over stdio): the executor's one
// sandbox plan (sandboxPlan.ts: the same bwrap, prlimit, cgroup with memory, processes and CPU, uids, identity
// files and egress bridge as a skill run), but kept running until the caller closes it. Only the named host
// folders are seen (read-only), beside the host's system folders; the environment is the caller's alone.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../ops/log.ts';
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import { type RunTrust, trustEnv } from './egressCa.ts';
import type { EgressPolicy, EgressRunProxy } from './egressProxy.ts';
import { prlimitArgs } from './limits.ts';
import { createRunDirs, removeRunDirs, type RunDirs, type RunOwner } from './runDirs.ts';
import type { RunCgroup } from './runCgroup.ts';
import { bwrapArgs, sandboxEnv } from './sandbox.ts';
import { INFO_FD, innerCommand, proxyEnv } from './sandboxInit.ts';
import { createSandboxPlan, egressSocketIn, placeholders, sandboxCgroup, type SandboxPlan, type SandboxPlanOptions } from './sandboxPlan.ts';
import { launch, type ServiceProcess, type ServiceSpec, startBare } from './serviceProcess.ts';
import type { SandboxStatus } from './types.ts';

export type { ServiceProcess, ServiceSpec } from './serviceProcess.ts';

export interface ServiceLauncherOptions extends Omit<SandboxPlanOptions, 'sandbox' | 'sandboxUidBase'> {
  /** The executor's plan (executor.startService passes it); without it, one is made from these options. */
  plan?: SandboxPlan;
  mode?: 'bwrap' | 'off';
  uidBase?: number;
  /** The executor's probe: a service is refused while the sandbox is unusable, never run bare. */
  sandbox: () => Promise<SandboxStatus>;
  /**
   * The executor's egress opener (Executor.egress): a networked service's proxy runs in the same egress process as
   * skill runs', with the world's `egressAllow`.
   */
  egress?: (socketPath: string, policy: EgressPolicy, owner?: { uid: number; gid: number }) => Promise<EgressRunProxy>;
  /** The executor's trust files (Executor.egressTrust), for a networked service with credentials. */
  egressTrust?: () => Promise<RunTrust | string>;
  logger: Logger;
}

export interface ServiceLauncher {
  start(spec: ServiceSpec): Promise<ServiceProcess | { refused: string }>;
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

/** What a started service holds, released when it ends or fails to start. */
interface Holding {
  dirs: RunDirs;
  owner: RunOwner | undefined;
  group: RunCgroup | undefined;
  proxy?: EgressRunProxy;
  /** A networked service's egress socket (host path). */
  socket?: string;
}

const release = async (held: Holding): Promise<void> => {
  await held.group?.remove();
  await held.proxy?.close();
  void removeRunDirs(held.dirs);
};

export function createServiceLauncher(options: ServiceLauncherOptions): ServiceLauncher {
  const { limits, bwrapPath, prlimitPath, nodePath, cgroups, mode, uidBase } = options;
  const plan = options.plan ?? createSandboxPlan({ limits, bwrapPath, prlimitPath, nodePath, cgroups, sandbox: mode, sandboxUidBase: uidBase });
  return {
    async start(spec) {
      if (plan.mode === 'off') return startBare(spec, options.logger);
      const status = await options.sandbox();
      if (!status.usable) return { refused: `the sandbox is unusable: ${status.problem}. To fix: ${status.fix}` };
      if (spec.network && status.mode === 'bwrap' && status.network !== undefined) {
        return { refused: `it may use the network, but the sandbox cannot give it a safe way out: ${status.network.problem}` };
      }
      const limits = { ...plan.limits, memoryBytes: spec.memoryBytes ?? plan.limits.memoryBytes };
      let group: RunCgroup | undefined;
      try {
        group = sandboxCgroup(plan, limits);
      } catch (error) {
        return { refused: `its cgroup could not be made (${(error as Error).message}), so it was not started unbounded` };
      }
      const owner = plan.ids.service(spec.owner);
      const held: Holding = { dirs: createRunDirs(owner), owner, group };
      try {
        const refused = await openEgress(spec, held, options);
        if (refused !== undefined) {
          await release(held);
          return { refused };
        }
        const trust = await trustOf(spec, options);
        if (typeof trust === 'string') {
          await release(held);
          return { refused: `its world gives it credentials, but ${trust}` };
        }
        const { command, args, env } = commandLine(spec, plan, held, trust);
        return launch(command, args, env, { dirs: held.dirs, owner, proxy: held.proxy, group, limits }, spec, options.logger);
      } catch (error) {
        await release(held);
        return { refused: `it could not be started: ${(error as Error).message}` };
      }
    },
  };
}

/** A networked service's proxy (in the egress process, serving a socket alone in a folder of its own); or why not. */
async function openEgress(spec: ServiceSpec, held: Holding, options: ServiceLauncherOptions): Promise<string | undefined> {
  if (!spec.network) return undefined;
  if (options.egress === undefined) return 'it may use the network, but no egress proxy is available here';
  const socket = egressSocketIn(held.dirs.root, held.owner);
  held.socket = socket;
  held.proxy = await options.egress(socket, { name: spec.name, allow: spec.egressAllow ?? [], credentials: spec.credentials ?? [] }, held.owner);
  return undefined;
}

/** A networked service with credentials trusts the installation CA (its trust files), or does not start. */
async function trustOf(spec: ServiceSpec, options: ServiceLauncherOptions): Promise<RunTrust | string | undefined> {
  if (!spec.network || (spec.credentials ?? []).length === 0) return undefined;
  return (await options.egressTrust?.()) ?? 'no installation CA is available here';
}

/** prlimit → bwrap → [bridge] → the command, and its environment: the plan's, as a run's. */
function commandLine(spec: ServiceSpec, plan: SandboxPlan, held: Holding, trust: RunTrust | undefined) {
  const { dirs, group } = held;
  const layout = {
    skills: [],
    cwd: SANDBOX_PATHS.home,
    sizes: { home: plan.limits.homeBytes, tmp: plan.limits.tmpBytes, shm: plan.limits.shmBytes },
    passwd: dirs.passwd,
    group: dirs.group,
    hosts: dirs.hosts,
    ...(held.socket === undefined ? {} : { egressSocket: held.socket, networked: true }),
    ...(trust === undefined ? {} : { trust }),
    infoFd: INFO_FD,
  };
  const limits = { ...plan.limits, memoryBytes: spec.memoryBytes ?? plan.limits.memoryBytes };
  const seen = spec.readOnly.flatMap((dir) => ['--ro-bind', dir, dir]);
  const inner = innerCommand([spec.command, ...spec.args], spec.network ? { nodePath: plan.nodePath } : undefined, group !== undefined);
  const args = [...prlimitArgs(limits, { perUid: group === undefined }), '--', plan.bwrapPath, ...bwrapArgs(layout, [...plan.system, ...seen]), '--', ...inner];
  const env = {
    ...sandboxEnv(process.env, { ...spec.env, ...placeholders(spec.credentials ?? []) }, false),
    ...(spec.network ? proxyEnv() : {}),
    ...(trust === undefined ? {} : trustEnv()),
  };
  return { command: plan.prlimitPath, args, env };
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
