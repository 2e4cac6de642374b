// Connections to MCP servers by who they serve: a stdio server runs once per world in the sandbox, an http/sse
// server with static headers is one shared connection, one without them one per person (their own sign-in).
// One connection's life is serverConnection.ts; its transport, transports.ts.
import type { McpServerConfig } from '../config/mcpSettings.ts';
import type { Connected, ConnectionDeps, ConnectionScope, NotConnected } from './connectionTypes.ts';
import { isShared, ServerConnection } from './serverConnection.ts';

export type { Connected, ConnectionDeps, ConnectionScope, NotConnected } from './connectionTypes.ts';
export { oneLine } from './serverConnection.ts';

const IDLE_MS = 15 * 60_000;
/** How often, at most, a get() looks for idle connections. */
const SWEEP_EVERY_MS = 60_000;

/** Which connection serves a call: a stdio server per world, a shared remote server once, a signed-in one per person. */
export function connectionKey(server: McpServerConfig, scope: Pick<ConnectionScope, 'worldId' | 'personId'>): string {
  if (server.type === 'stdio') return `${server.name}\0world\0${scope.worldId}`;
  if (isShared(server)) return `${server.name}\0shared`;
  return `${server.name}\0person\0${scope.personId}`;
}

/**
 * Connections by who they serve: one per shared remote server (bounded by the config), and one per world (stdio)
 * or per person (signed-in remote servers), which come and go with the people and channels that use them: those
 * are closed after `idleMs` unused, and the next call connects afresh.
 */
export class McpConnections {
  private readonly connections = new Map<string, { connection: ServerConnection; usedAt: number }>();
  private sweptAt: number;
  private readonly now: () => number;

  constructor(private readonly deps: ConnectionDeps) {
    this.now = deps.now ?? Date.now;
    this.sweptAt = this.now();
  }

  /** Connections held now (open, opening or failed and remembered). */
  get held(): number {
    return this.connections.size;
  }

  get(server: McpServerConfig, scope: ConnectionScope): Promise<Connected | NotConnected> {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) this.closeIdle(now);
    const key = connectionKey(server, scope);
    let entry = this.connections.get(key);
    if (entry === undefined) {
      entry = { connection: new ServerConnection(server, scope, this.deps), usedAt: now };
      this.connections.set(key, entry);
    }
    entry.usedAt = now;
    return entry.connection.get();
  }

  /** Drops a person's connection to a server (signed in anew, or disconnected). */
  async reset(server: McpServerConfig, personId: string): Promise<void> {
    const key = connectionKey(server, { worldId: '', personId });
    await this.connections.get(key)?.connection.reset();
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((entry) => entry.connection.close()));
  }

  private closeIdle(now: number): void {
    this.sweptAt = now;
    const idleMs = this.deps.idleMs ?? IDLE_MS;
    for (const [key, entry] of this.connections) {
      if (isShared(entry.connection.server) || now - entry.usedAt < idleMs) continue;
      this.connections.delete(key);
      void entry.connection.close();
    }
  }
}
