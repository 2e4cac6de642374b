// The bot's side of the egress proxy: one process of its own (egressProcess.mjs), started on the first run that
// needs it and again if it ever ends, which holds every run's proxy. Out of the bot's process, because a proxy
// serves code nobody trusts and servers nobody chose: whatever they do to it (invalid answers, thousands of idle
// connections, names whose DNS never answers) costs that process, never the bot's event loop, file descriptors
// or name resolution. Shared rather than one per run: starting node costs tens of ms, a message costs well under one.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';
import type { Logger } from '../ops/log.ts';
import type { Credential } from '../config/credentialsSchema.ts';
import { parseEgressAllow } from './addressPolicy.mjs';
import type { CaPems } from './egressCa.ts';

/** Bounds of one run's proxy (docs/security.md, "Bounds"). */
export interface EgressBounds {
  /** Client connections open at once; more are closed at once. */
  maxConnections: number;
  /** A connection, or a tunnel, with no traffic either way for this long is closed. */
  idleMs: number;
  connectTimeoutMs: number;
  /** Distinct names one run may have looked up; past it, names are refused. */
  maxLookups: number;
  /** One lookup (c-ares, two tries) gives up after this long. */
  lookupTimeoutMs: number;
}

export const DEFAULT_EGRESS_BOUNDS: EgressBounds = {
  maxConnections: 64,
  idleMs: 60_000,
  connectTimeoutMs: 10_000,
  maxLookups: 256,
  lookupTimeoutMs: 5_000,
};

/** What one proxy serves: a networked run, or a networked stdio MCP server. */
export interface EgressPolicy {
  /** The skill id (`bash` for the shell, a server name for MCP), for the logs. */
  name: string;
  /** The world's `egressAllow`: ranges and host names reachable although not public (never loopback or the host). */
  allow: readonly string[];
  /** The world's credentials: their hosts' CONNECTs are terminated and their headers set (egressCredentials.mjs). */
  credentials?: readonly Credential[];
}

export interface EgressRunProxy {
  /** Stops it, cuts its connections, drops its pending lookups; resolves with what it refused (`host:port: why`). */
  close(): Promise<string[]>;
}

export interface EgressProxies {
  /**
   * A proxy listening on `socketPath` (a host path, bound into the sandbox at EGRESS_SOCKET_INSIDE), reachable
   * only by `owner` (mode 0600) when given. Rejects when the egress process cannot listen there.
   */
  open(socketPath: string, policy: EgressPolicy, owner?: { uid: number; gid: number }): Promise<EgressRunProxy>;
  /** Ends the egress process (the bot's shutdown). */
  close(): void;
}

export interface EgressProxiesOptions {
  bounds?: Partial<EgressBounds>;
  /** DNS servers the proxy asks (default: the host's /etc/resolv.conf); tests name a server of their own. */
  dnsServers?: string[];
  /** The installation CA and the upstream trust, loaded when a proxy first has credentials (egressCa.ts). */
  ca?: () => Promise<CaPems & { upstreamCa: string }>;
  logger?: Logger;
}

type Reply =
  | { kind: 'opened'; id: string }
  | { kind: 'failed'; id: string; error: string }
  | { kind: 'refused'; id: string; line: string }
  | { kind: 'leak'; id: string; env: string; where: string };

const OPEN_TIMEOUT_MS = 10_000;

/** The egress process, started on first need and again after it ends, and its question-and-answer channel. */
class EgressProcess {
  private readonly pending = new Map<string, (reply: Reply) => void>();
  private child: ChildProcess | undefined;
  /** Whether the running egress process has been given the CA. */
  private caSent = false;
  closed = false;

  constructor(
    private readonly logger: Logger | undefined,
    /** Replies that answer no question: a refusal or a refused placeholder, pushed as they happen. */
    private readonly onPush: (reply: Extract<Reply, { kind: 'refused' | 'leak' }>) => void,
  ) {}

  send(message: Record<string, unknown>): void {
    if (this.child?.connected === true) this.child.send(message, () => undefined);
  }

  kill(): void {
    this.closed = true;
    this.child?.kill();
    this.child = undefined;
  }

  private start(): ChildProcess {
    // An allowlisted environment, no flags of the bot's (a TypeScript loader, inspector): it is plain JavaScript.
    const started = fork(fileURLToPath(new URL('./egressProcess.mjs', import.meta.url)), [], {
      execArgv: [],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    // Never what keeps the bot's process alive: its pipes and channel are unreferenced too.
    started.unref();
    started.channel?.unref();
    (started.stderr as Socket | null)?.unref();
    started.stderr?.on('data', (chunk: Buffer) => this.logger?.warn({ output: chunk.toString().slice(0, 2000) }, 'the egress proxy process reported a fault'));
    started.on('message', (reply: Reply) => {
      if (reply.kind === 'refused' || reply.kind === 'leak') this.onPush(reply);
      else this.pending.get(reply.id)?.(reply);
    });
    started.on('error', (error) => this.logger?.warn({ err: error }, 'the egress proxy process failed'));
    this.caSent = false;
    started.once('exit', (code, signal) => {
      if (this.child === started) {
        this.child = undefined;
        this.caSent = false;
      }
      if (!this.closed) this.logger?.warn({ code, signal }, 'the egress proxy process ended; the next networked run starts another');
      // Whatever it held is gone: its runs' proxies answer nothing more, and their waits end now.
      for (const [id, settle] of this.pending) settle({ kind: 'failed', id, error: 'the egress proxy process ended' });
    });
    return started;
  }

  ask(message: Record<string, unknown> & { id: string }, ca?: CaPems & { upstreamCa: string }): Promise<Reply> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle({ kind: 'failed', id: message.id, error: 'the egress proxy process did not answer' }), OPEN_TIMEOUT_MS);
      const settle = (reply: Reply): void => {
        clearTimeout(timer);
        this.pending.delete(message.id);
        resolve(reply);
      };
      this.pending.set(message.id, settle);
      try {
        this.child ??= this.start();
        if (ca !== undefined && !this.caSent) {
          // Before the open on the same channel, so the process has it by the time it reads the open.
          this.child.send({ kind: 'ca', ...ca });
          this.caSent = true;
        }
        this.child.send(message, (error) => {
          if (error !== null) settle({ kind: 'failed', id: message.id, error: error.message });
        });
      } catch (error) {
        settle({ kind: 'failed', id: message.id, error: (error as Error).message });
      }
    });
  }
}

export function createEgressProxies(options: EgressProxiesOptions = {}): EgressProxies {
  const bounds = { ...DEFAULT_EGRESS_BOUNDS, ...options.bounds };
  /** What each open proxy refused so far, pushed by the egress process as it happens. */
  const refusals = new Map<string, string[]>();
  /** Which proxy is for what, for the log line of a refused placeholder. */
  const names = new Map<string, string>();
  const egress = new EgressProcess(options.logger, (reply) => {
    if (reply.kind === 'refused') refusals.get(reply.id)?.push(reply.line);
    else {
      options.logger?.warn({ decision: 'credential_leak_refused', skill: names.get(reply.id), credential: reply.env, destination: reply.where }, 'the egress proxy refused a credential placeholder sent to a host it is not for');
    }
  });

  return {
    async open(socketPath, policy, owner) {
      if (egress.closed) throw new Error('the egress proxy is closed');
      const allow = parseEgressAllow(policy.allow);
      if ('error' in allow) throw new Error(`egressAllow: ${allow.error}`);
      const credentials = policy.credentials ?? [];
      if (credentials.length > 0 && options.ca === undefined) throw new Error('this world has credentials, but the bot has no installation CA to terminate their TLS with');
      const ca = credentials.length > 0 ? await options.ca?.() : undefined;
      const id = randomUUID();
      const settings = {
        ...bounds,
        skill: policy.name,
        allow: [...policy.allow],
        ...(credentials.length === 0 ? {} : { credentials: credentials.map((credential) => ({ ...credential })) }),
        ...(options.dnsServers === undefined ? {} : { dnsServers: options.dnsServers }),
        ...(owner === undefined ? {} : { owner }),
      };
      refusals.set(id, []);
      names.set(id, policy.name);
      const opened = await egress.ask({ kind: 'open', id, socketPath, settings }, ca);
      if (opened.kind === 'failed') {
        refusals.delete(id);
        names.delete(id);
        throw new Error(`the egress proxy could not listen: ${opened.error}`);
      }
      return {
        // No answer awaited: a close costs the run no round trip. Refusals came before their answers did, so one
        // more turn of the event loop has read every one the run's processes could have seen.
        close: async () => {
          egress.send({ kind: 'close', id });
          await new Promise((resolve) => setImmediate(resolve));
          const refused = refusals.get(id) ?? [];
          refusals.delete(id);
          names.delete(id);
          return refused;
        },
      };
    },
    close: () => egress.kill(),
  };
}
