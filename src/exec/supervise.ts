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
  return new Promise((resolve) => new Supervision(child, options, resolve).start());
}

/** One child's supervision: its output, its exit, and the kills of a timeout or a Stop. */
class Supervision {
  private readonly stdout: OutputCap;
  private readonly stderr: OutputCap;
  private readonly timers = new Set<NodeJS.Timeout>();
  private openStreams = 0;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private spawnError: NodeJS.ErrnoException | undefined;
  private timedOut = false;
  private stopped = false;
  private exitedBeforeTimeout = false;
  private finished = false;
  private initKilled = false;
  private waitedForInit = 0;
  private readonly onAbort = (): void => {
    if (this.finished || this.timedOut || this.stopped) return;
    this.stopped = true;
    this.killFromInside(() => {
      this.signal('SIGKILL');
      this.settleAfterKill();
    });
  };

  constructor(
    private readonly child: ChildProcess,
    private readonly options: SuperviseOptions,
    private readonly resolve: (run: SupervisedRun) => void,
  ) {
    this.stdout = new OutputCap(options.maxOutputBytes);
    this.stderr = new OutputCap(options.maxOutputBytes);
  }

  start(): void {
    const { child, options } = this;
    this.watch(child.stdout, this.stdout);
    this.watch(child.stderr, this.stderr);
    child.once('exit', (code, exitSignal) => {
      this.exit = { code, signal: exitSignal };
      this.finishWhenDone();
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // only a failure to start concerns us
      this.spawnError = error;
      this.finishWhenDone();
    });
    if (options.abortSignal?.aborted === true) this.onAbort();
    else options.abortSignal?.addEventListener('abort', this.onAbort, { once: true });
    this.later(options.timeoutMs, () => this.onTimeout());
  }

  private signal(name: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    const failure = signalGroup(this.child.pid, name);
    if (failure !== undefined) this.options.onSignalError(failure);
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.options.abortSignal?.removeEventListener('abort', this.onAbort);
    // Whatever the script left running in its group (even with its output redirected) ends with the run.
    this.signal('SIGKILL');
    this.resolve({
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      ...(this.spawnError === undefined ? {} : { spawnError: this.spawnError }),
      timedOut: this.timedOut,
      stopped: this.stopped,
      exitedBeforeTimeout: this.exitedBeforeTimeout,
      stdout: this.stdout.finish(),
      stderr: this.stderr.finish(),
    });
  }

  private finishWhenDone(): void {
    if ((this.exit !== undefined || this.spawnError !== undefined) && this.openStreams === 0) this.finish();
  }

  private watch(stream: Readable | null, cap: OutputCap): void {
    if (stream === null) return;
    this.openStreams += 1;
    stream.on('data', (chunk: Buffer) => cap.push(chunk));
    // A pipe we destroy after the kill may report an error; the run's outcome is already decided.
    stream.on('error', () => undefined);
    stream.once('close', () => {
      this.openStreams -= 1;
      this.finishWhenDone();
    });
  }

  /** Drops the pipes shortly after a SIGKILL: a process that left the group could hold them open for ever. */
  private settleAfterKill(): void {
    this.later(this.initKilled ? REAP_WAIT_MS : SETTLE_AFTER_KILL_MS, () => {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
      this.finish();
    });
  }

  /**
   * Kills the sandbox from inside out; while bwrap has not named its init yet (a slow start), waits for it rather
   * than orphan it, and only then falls back to the group (`fallback`).
   */
  private killFromInside(fallback: () => void): void {
    if (this.finished) return;
    this.initKilled = this.options.killSandbox?.() === true;
    if (this.initKilled) {
      this.settleAfterKill();
      return;
    }
    if (this.options.killSandbox !== undefined && this.exit === undefined && this.waitedForInit < INIT_WAIT_MS) {
      this.waitedForInit += INIT_POLL_MS;
      this.later(INIT_POLL_MS, () => this.killFromInside(fallback));
      return;
    }
    fallback();
  }

  private onTimeout(): void {
    if (this.stopped || this.finished) return;
    this.timedOut = true;
    this.exitedBeforeTimeout = this.exit !== undefined;
    this.killFromInside(() => {
      this.signal('SIGTERM');
      this.later(this.options.killGraceMs, () => {
        this.signal('SIGKILL');
        this.settleAfterKill();
      });
    });
  }
}
