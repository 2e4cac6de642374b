import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from './log.ts';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * The one HTTP listener on PORT: `/livez` (the process answers), `/readyz` (the readiness check: store reachable,
 * platforms connected) and `/healthz` (the same as `/readyz`) here, `POST /slack/events` mounted by the Slack
 * adapter in HTTP mode, `/metrics` by whoever serves metrics. Small on purpose: a route table, nothing else.
 */
export class HttpServer {
  private readonly routes = new Map<string, RouteHandler>();
  private readonly prefixes: Array<{ key: string; handler: RouteHandler }> = [];
  private server: Server | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly health: () => Promise<{ ok: boolean; detail: Record<string, unknown> }>,
  ) {
    // Liveness asks nothing of the store or the platforms: an orchestrator restarts a process that fails it, and a
    // store outage is not cured by a restart (the bot recovers by itself).
    this.route('GET', '/livez', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    });
    const readiness = async (_req: IncomingMessage, res: ServerResponse) => {
      const { ok, detail } = await this.health();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok, ...detail }));
    };
    this.route('GET', '/readyz', readiness);
    this.route('GET', '/healthz', readiness);
  }

  route(method: string, path: string, handler: RouteHandler): void {
    this.routes.set(`${method} ${path}`, handler);
  }

  /** A handler for every path under `prefix` (ending in `/`), such as `/hooks/<id>`. */
  routePrefix(method: string, prefix: string, handler: RouteHandler): void {
    this.prefixes.push({ key: `${method} ${prefix}`, handler });
  }

  async listen(port: number, host: string): Promise<number> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const key = `${req.method} ${path}`;
      const handler = this.routes.get(key) ?? this.prefixes.find((each) => key.startsWith(each.key) && key.length > each.key.length)?.handler;
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      Promise.resolve(handler(req, res)).catch((error: unknown) => {
        this.logger.error({ err: error, path }, 'http handler failed');
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    return typeof address === 'object' && address ? address.port : port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
