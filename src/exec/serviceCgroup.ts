// A long-running sandboxed process (a stdio MCP server) in a cgroup of its own, as a run is (runCgroup.ts): its
// first process waits at the gate (sandboxInit.ts GATE_FD) until the bot has moved it into the cgroup, so nothing
// of it ever runs outside its memory and process bounds. One that cannot be moved is killed, never left unbounded.
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../ops/log.ts';
import type { RunCgroup } from './runCgroup.ts';

/** bwrap's --info-fd JSON names the sandbox's init: `"child-pid": N`. */
export const initPidOf = (info: string): number | undefined => {
  const pid = Number(/"child-pid":\s*(\d+)/.exec(info)?.[1]);
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
};

/** Waits for bwrap to name the sandbox's init on `info`, moves it into `group`, then opens the gate. */
export function gateIntoCgroup(info: Readable, gate: Writable, group: RunCgroup, kill: () => void, logger: Logger, name: string): void {
  gate.on('error', () => undefined);
  let text = '';
  let moved = false;
  const onData = (chunk: Buffer) => {
    if (moved || text.length > 4096) return;
    text += chunk.toString('utf8');
    const pid = initPidOf(text);
    if (pid === undefined) return;
    moved = true;
    info.off('data', onData);
    group.add(pid).then(
      () => gate.end('\n'),
      (error: unknown) => {
        logger.warn({ err: error, service: name }, 'could not move a sandboxed service into its cgroup: it was ended');
        gate.destroy();
        kill();
      },
    );
  };
  info.on('data', onData);
  info.once('close', () => {
    if (!moved) gate.destroy();
  });
}

/** Which bound a service's cgroup met, in the words of its log line and error. */
export function boundMet(group: RunCgroup | undefined, memoryBytes: number, maxProcesses: number): string | undefined {
  if (group === undefined) return undefined;
  const hit = group.hit();
  if (hit.memory) return `it reached its memory bound (${Math.round(memoryBytes / (1024 * 1024))} MiB for the server as a whole: mcpServers.<name>.memoryMb)`;
  if (hit.processes) return `it reached its process bound (${maxProcesses} processes)`;
  return undefined;
}
