// Watches one spawned child until it and its output are done, enforcing the timeout on its whole process group.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { OutputCap, type CappedOutput } from './outputCap.ts';
import { signalGroup } from './processGroup.ts';

export interface SuperviseOptions {
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  maxOutputBytes: number;
  /** Told when a signal could not be delivered (anything but "already gone"). */
  onSignalError: (error: NodeJS.ErrnoException) => void;
  /** Aborting it kills the whole group at once (a person pressed Stop). */
  abortSignal?: AbortSignal;
  /**
   * Kills the sandbox from inside out (its init, so bwrap outside sees it end, reaps it and exits): true when it
   * could. Killing bwrap first would orphan its init, and a bot running as PID 1 would collect that zombie.
   */
  killSandbox?: () => boolean;
}

export interface SupervisedRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the child could not be started (missing interpreter, EACCES, …). */
  spawnError?: NodeJS.ErrnoException;
  timedOut: boolean;
  /** Ended by the abort signal. */
  stopped: boolean;
  /** The direct child had exited when the timeout struck: background processes kept its output open. */
  exitedBeforeTimeout: boolean;
  stdout: CappedOutput;
  stderr: CappedOutput;
}

// After SIGKILL, how long to wait for the pipes to close before dropping them: a process that left the group
// with setsid could hold them open for ever.
const SETTLE_AFTER_KILL_MS = 500;
// After the sandbox's init was killed, how long bwrap outside gets to reap it and exit by itself before the group
// is killed: killing bwrap first would leave its init to the bot as a zombie when the bot is PID 1.
const REAP_WAIT_MS = 5000;
// How long a timeout waits for bwrap to name its init before killing the group instead.
const INIT_WAIT_MS = 2000;
const INIT_POLL_MS = 20;

export function supervise(child: ChildProcess, options: SuperviseOptions): Promise<SupervisedRun> {
  return new Promise((resolve) => {
    const stdout = new OutputCap(options.maxOutputBytes);
    const stderr = new OutputCap(options.maxOutputBytes);
    const timers = new Set<NodeJS.Timeout>();
    let openStreams = 0;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    let timedOut = false;
    let stopped = false;
    let exitedBeforeTimeout = false;
    let finished = false;

    const signal = (name: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      const failure = signalGroup(child.pid, name);
      if (failure !== undefined) options.onSignalError(failure);
    };
    const later = (ms: number, action: () => void): void => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        action();
      }, ms);
      timers.add(timer);
    };

    const finish = (): void => {
      if (finished) return;
      finished = true;
      for (const timer of timers) clearTimeout(timer);
      options.abortSignal?.removeEventListener('abort', onAbort);
      // Whatever the script left running in its group (even with its output redirected) ends with the run.
      signal('SIGKILL');
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        ...(spawnError === undefined ? {} : { spawnError }),
        timedOut,
        stopped,
        exitedBeforeTimeout,
        stdout: stdout.finish(),
        stderr: stderr.finish(),
      });
    };
    const finishWhenDone = (): void => {
      if ((exit !== undefined || spawnError !== undefined) && openStreams === 0) finish();
    };

    const watch = (stream: Readable | null, cap: OutputCap): void => {
      if (stream === null) return;
      openStreams += 1;
      stream.on('data', (chunk: Buffer) => cap.push(chunk));
      // A pipe we destroy after the kill may report an error; the run's outcome is already decided.
      stream.on('error', () => undefined);
      stream.once('close', () => {
        openStreams -= 1;
        finishWhenDone();
      });
    };
    watch(child.stdout, stdout);
    watch(child.stderr, stderr);

    child.once('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      finishWhenDone();
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // only a failure to start concerns us
      spawnError = error;
      finishWhenDone();
    });

    // Drops the pipes shortly after a SIGKILL: a process that left the group could hold them open for ever.
    let initKilled = false;
    const killInit = (): boolean => {
      initKilled = options.killSandbox?.() === true;
      return initKilled;
    };
    const settleAfterKill = (): void => {
      later(initKilled ? REAP_WAIT_MS : SETTLE_AFTER_KILL_MS, () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      });
    };
    // Kills the sandbox from inside out; while bwrap has not named its init yet (a slow start), waits for it rather
    // than orphan it, and only then falls back to the group (`fallback`).
    let waitedForInit = 0;
    const killFromInside = (fallback: () => void): void => {
      if (finished) return;
      if (killInit()) {
        settleAfterKill();
        return;
      }
      if (options.killSandbox !== undefined && exit === undefined && waitedForInit < INIT_WAIT_MS) {
        waitedForInit += INIT_POLL_MS;
        later(INIT_POLL_MS, () => killFromInside(fallback));
        return;
      }
      fallback();
    };
    const onAbort = (): void => {
      if (finished || timedOut || stopped) return;
      stopped = true;
      killFromInside(() => {
        signal('SIGKILL');
        settleAfterKill();
      });
    };
    if (options.abortSignal?.aborted === true) onAbort();
    else options.abortSignal?.addEventListener('abort', onAbort, { once: true });

    const onTimeout = (): void => {
      if (stopped || finished) return;
      timedOut = true;
      exitedBeforeTimeout = exit !== undefined;
      killFromInside(() => {
        signal('SIGTERM');
        later(options.killGraceMs, () => {
          signal('SIGKILL');
          settleAfterKill();
        });
      });
    };
    later(options.timeoutMs, onTimeout);
  });
}
