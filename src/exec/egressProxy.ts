// The only way out of a networked sandbox: an HTTP proxy (CONNECT tunnels, and plain `GET http://…` requests)
// listening on a unix socket bound into the sandbox. It resolves names itself and connects only to the address it
// checked, so no name can be re-pointed at the host between the check and the connection.
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressPolicy } from './addressPolicy.ts';

export interface EgressProxy {
  /** Destinations refused so far (`host:port: why`), for the run's result. */
  refused: string[];
  /** Stops listening and cuts every open connection. */
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 10_000;
const MAX_REFUSALS_KEPT = 20;
const HOP_BY_HOP = ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade'];

type Target = { ok: true; address: string } | { ok: false; why: string };

/** Every address of a name (the host's resolver by default; tests give names of their own). */
export type EgressLookup = (name: string) => Promise<string[]>;

const systemLookup: EgressLookup = async (name) => (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);

/** The first address of `host` the policy allows; a literal address is checked as it is. */
async function resolveTarget(host: string, policy: AddressPolicy, resolve: EgressLookup): Promise<Target> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (net.isIP(bare) !== 0) addresses = [bare];
  else {
    try {
      addresses = await resolve(bare);
    } catch (error) {
      return { ok: false, why: `the name does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  let why = 'the name has no address';
  for (const address of addresses) {
    const refusal = policy.refuses(address);
    if (refusal === undefined) return { ok: true, address };
    why = refusal;
  }
  return { ok: false, why };
}

/** `host:port` of a CONNECT request line; undefined when malformed. */
function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65_536 ? { host: match[1], port } : undefined;
}

export async function startEgressProxy(socketPath: string, policy: AddressPolicy, resolve: EgressLookup = systemLookup): Promise<EgressProxy> {
  const open = new Set<Duplex>();
  const refused: string[] = [];
  const track = (socket: Duplex): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
  };
  const refuse = (where: string, why: string): string => {
    if (refused.length < MAX_REFUSALS_KEPT) refused.push(`${where}: ${why}`);
    return `skillbot egress proxy refused ${where}: ${why}\n`;
  };

  const server = http.createServer({ requestTimeout: 0 });
  server.on('connection', track);

  server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    void (async () => {
      const authority = splitAuthority(request.url ?? '');
      if (authority === undefined) {
        client.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nCONNECT needs host:port\n');
        return;
      }
      const where = `${authority.host}:${authority.port}`;
      const target = await resolveTarget(authority.host, policy, resolve);
      if (!target.ok) {
        client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${refuse(where, target.why)}`);
        return;
      }
      const upstream = net.connect({ host: target.address, port: authority.port, timeout: CONNECT_TIMEOUT_MS });
      track(upstream);
      upstream.once('timeout', () => upstream.destroy(new Error('connect timeout')));
      upstream.once('connect', () => {
        upstream.setTimeout(0);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        if (client.writable) client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\n${where}: ${error.code ?? error.message}\n`);
        else client.destroy();
      });
      client.once('close', () => upstream.destroy());
    })();
  });

  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    void (async () => {
      let url: URL;
      try {
        url = new URL(request.url ?? '');
      } catch {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('a proxy request needs an absolute http:// URL\n');
        return;
      }
      if (url.protocol !== 'http:') {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`use CONNECT for ${url.protocol} URLs\n`);
        return;
      }
      const port = url.port === '' ? 80 : Number(url.port);
      const where = `${url.hostname}:${port}`;
      const target = await resolveTarget(url.hostname, policy, resolve);
      if (!target.ok) {
        response.writeHead(403, { 'content-type': 'text/plain' }).end(refuse(where, target.why));
        return;
      }
      const headers = { ...request.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      const upstream = http.request({
        host: target.address,
        port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host },
        agent: false,
        setHost: false,
        timeout: CONNECT_TIMEOUT_MS,
      });
      upstream.on('socket', track);
      upstream.once('timeout', () => upstream.destroy(new Error('timeout')));
      upstream.once('response', (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end(`${where}: ${error.code ?? error.message}\n`);
        else response.destroy();
      });
      request.pipe(upstream);
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
