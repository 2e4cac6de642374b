// The two skillbot instances under test: real `node bin/skillbot.mjs start` processes, each life's stderr in
// its own file, every exit recorded (ours by SIGKILL or SIGTERM, or a crash).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const SKILLBOT = fileURLToPath(new URL('../../bin/skillbot.mjs', import.meta.url));

export interface Life {
  instance: string;
  n: number;
  pid: number;
  logPath: string;
  startedAt: number;
  healthyAt?: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; at: number; requested: 'kill' | 'stop' | undefined };
}

export class Instance {
  readonly lives: Life[] = [];
  #child: ChildProcess | undefined;
  #requested: 'kill' | 'stop' | undefined;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly cwd: string,
    private readonly logsDir: string,
    /** When set, the process runs with its inspector on this loopback port (the heap sampler reads it). */
    readonly inspectPort?: number,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get eventsUrl(): string {
    return `${this.baseUrl}/slack/events`;
  }

  get running(): boolean {
    return this.#child !== undefined && this.current?.exit === undefined;
  }

  get current(): Life | undefined {
    return this.lives.at(-1);
  }

  /** Starts a new life and waits until /healthz answers 200. */
  async start(timeoutMs = 60_000): Promise<Life> {
    const n = this.lives.length + 1;
    const logPath = join(this.logsDir, `${this.name}-life${n}.log`);
    const fd = openSync(logPath, 'a');
    const inspect = this.inspectPort === undefined ? [] : [`--inspect=127.0.0.1:${this.inspectPort}`];
    const child = spawn(process.execPath, [...inspect, SKILLBOT, 'start'], {
      cwd: this.cwd,
      env: { ...this.env, PORT: String(this.port) },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const life: Life = { instance: this.name, n, pid: child.pid ?? -1, logPath, startedAt: Date.now() };
    this.lives.push(life);
    this.#child = child;
    this.#requested = undefined;
    child.on('exit', (code, signal) => {
      life.exit = { code, signal, at: Date.now(), requested: this.#requested };
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (life.exit) throw new Error(`${this.name} exited while starting (code ${life.exit.code}, signal ${life.exit.signal}); see ${logPath}`);
      const healthy = await fetch(`${this.baseUrl}/healthz`, { signal: AbortSignal.timeout(1_000) })
        .then((response) => response.status === 200)
        .catch(() => false);
      if (healthy) {
        life.healthyAt = Date.now();
        return life;
      }
      await delay(100);
    }
    throw new Error(`${this.name} was not healthy within ${timeoutMs} ms; see ${logPath}`);
  }

  /** SIGKILL: the process dies at once, whatever it was doing. */
  kill(): void {
    if (!this.running) return;
    this.#requested = 'kill';
    this.#child?.kill('SIGKILL');
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Resolves once it exited. */
  async stop(graceMs = 30_000): Promise<void> {
    const child = this.#child;
    const life = this.current;
    if (!child || !life || life.exit) return;
    this.#requested = 'stop';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
