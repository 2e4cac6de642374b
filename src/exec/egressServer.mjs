// @ts-check
// One run's egress proxy, inside the egress process (egressProcess.mjs): an HTTP proxy (CONNECT tunnels, and plain
// `GET http://…` requests) on a unix socket bound into the sandbox. It resolves names itself (c-ares, never the
// host's getaddrinfo threads) and connects only to the address it checked, so no name can be re-pointed at the
// host between the check and the connection. Nothing a client or an upstream server sends may throw out of a
// handler: a failure ends that one connection.
import { chmodSync, chownSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { targetResolver } from './egressTargets.mjs';
import { answerer, credentialsFor, leakIn, pipeGuarded, relayReply, requestHead, terminate, terminatedServer } from './egressCredentials.mjs';

/**
 * @typedef {object} RunSettings
 * @property {string} skill the skill (or `bash`, or an MCP server) the proxy is for
 * @property {string[]} allow `egressAllow`: ranges and host names reachable although not public
 * @property {number} maxConnections client connections open at once
 * @property {number} idleMs a connection (or tunnel) with no traffic for this long is closed
 * @property {number} connectTimeoutMs
 * @property {number} maxLookups name lookups in the whole run
 * @property {number} lookupTimeoutMs
 * @property {string[]} [dnsServers] the resolver's servers (default: the host's resolv.conf)
 * @property {{ uid: number; gid: number }} [owner] who may connect to the socket (the run's user)
 * @property {import('./egressCredentials.mjs').Credential[]} [credentials] the world's credentials (egressCredentials.mjs)
 */

const MAX_REFUSALS_KEPT = 20;
const HOP_BY_HOP = ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade'];

/**
 * `host:port` of a CONNECT request line; undefined when malformed.
 * @param {string} authority
 */
export function splitAuthority(authority) {
  const match = /^(\[[^\]]+\]|[^:/\s]+):(\d{1,5})$/.exec(authority);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65_536 ? { host: match[1], port } : undefined;
}

/**
 * A status line for a raw socket (CONNECT answers): fixed words, the text as the body.
 * @param {number} status
 * @param {string} reason
 * @param {string} text
 */
function rawAnswer(status, reason, text) {
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`;
}

/**
 * What every connection of one run's proxy shares: the open sockets, the refusals told, the targets it may reach.
 * @typedef {object} ProxyRun
 * @property {RunSettings} settings
 * @property {import('./egressCredentials.mjs').Credential[]} credentials
 * @property {(socket: import('node:stream').Duplex) => void} track
 * @property {(where: string, why: string) => string} refuse
 * @property {(where: string, env: string) => string} leak
 * @property {(host: string) => Promise<import('./egressTargets.mjs').Target>} resolveTarget
 * @property {() => boolean} closed
 */

/**
 * @param {RunSettings} settings @param {(line: string) => void} onRefused
 * @param {{ onLeak?: (env: string, where: string) => void }} secrets
 */
function proxyRun(settings, onRefused, secrets) {
  const targets = targetResolver(settings);
  /** @type {Set<import('node:stream').Duplex>} */
  const open = new Set();
  /** @type {string[]} */
  const refused = [];
  let closed = false;
  /** @type {ProxyRun['refuse']} */
  const refuse = (where, why) => {
    if (refused.length < MAX_REFUSALS_KEPT && !refused.includes(`${where}: ${why}`)) {
      refused.push(`${where}: ${why}`);
      onRefused(`${where}: ${why}`);
    }
    return `skillbot egress proxy refused ${where} for ${settings.skill}: ${why}\n`;
  };
  /** @type {ProxyRun} */
  const run = {
    settings,
    credentials: settings.credentials ?? [],
    track: (socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      socket.on('error', () => undefined);
      if (closed) socket.destroy();
    },
    refuse,
    // A placeholder on its way to a host it is not for: refused, and told to the bot.
    leak: (where, env) => {
      secrets.onLeak?.(env, where);
      return refuse(where, `the request carries the placeholder of credential ${env}, which is for another host`);
    },
    resolveTarget: targets.resolveTarget,
    closed: () => closed,
  };
  const close = () => {
    closed = true;
    targets.cancel();
    for (const socket of open) socket.destroy();
  };
  return { run, close };
}

/**
 * Starts listening on `socketPath`; resolves once it does. `onRefused` hears each refusal (`host:port: why`, each
 * once, at most 20) before the client gets its answer, so whoever waits for the client's end has heard it;
 * `onLeak` hears each credential placeholder refused on its way to another host. With credentials, `termination`
 * (the CA's leaves, the upstream trust) must be given.
 * @param {string} socketPath
 * @param {RunSettings} settings
 * @param {(line: string) => void} onRefused
 * @param {{ termination?: import('./egressCredentials.mjs').Termination; onLeak?: (env: string, where: string) => void }} [secrets]
 */
export async function startRunProxy(socketPath, settings, onRefused, secrets = {}) {
  const { termination } = secrets;
  if ((settings.credentials ?? []).length > 0 && termination === undefined) throw new Error('credentials need the installation CA, which the egress process was not given');
  const { run, close } = proxyRun(settings, onRefused, secrets);
  const server = http.createServer({ requestTimeout: 0, headersTimeout: settings.idleMs, keepAliveTimeout: settings.idleMs });
  server.maxConnections = settings.maxConnections;
  server.on('connection', (socket) => {
    run.track(socket);
    socket.setTimeout(settings.idleMs, () => socket.destroy());
  });
  // A malformed request line or header ends that connection with a 400, as Node would, and nothing else.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  // Requests of the CONNECTs terminated for a credential host: the credential's header set, sent on over TLS.
  const terminated = terminatedServer(settings, run.credentials, termination, { track: run.track, leak: run.leak, hopByHop: HOP_BY_HOP });
  server.on('connect', (request, client, head) => void guarded(client, () => onConnect(run, request, client, head, termination === undefined ? undefined : { termination, ...terminated })));
  server.on('request', (request, response) => void guarded(response.socket, () => onRequest(run, request, response)));

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  server.on('error', () => undefined);
  chmodSync(socketPath, 0o600);
  if (settings.owner !== undefined) chownSync(socketPath, settings.owner.uid, settings.owner.gid);

  return {
    /** Stops listening, cuts every open connection and drops the lookups still pending. */
    close() {
      close();
      terminated.agent.destroy();
      server.close();
    },
  };
}

/**
 * A CONNECT: refused, terminated (a credential's host: its requests are read and the header set), or a tunnel.
 * @param {ProxyRun} run @param {http.IncomingMessage} request @param {import('node:stream').Duplex} client @param {Buffer} head
 * @param {({ termination: import('./egressCredentials.mjs').Termination } & ReturnType<typeof terminatedServer>) | undefined} terminating
 */
async function onConnect(run, request, client, head, terminating) {
  const authority = splitAuthority(request.url ?? '');
  if (authority === undefined) {
    client.end(rawAnswer(400, 'Bad Request', 'CONNECT needs host:port\n'));
    return;
  }
  const where = `${authority.host}:${authority.port}`;
  const target = await run.resolveTarget(authority.host);
  if (!target.ok) {
    client.end(rawAnswer(403, 'Forbidden', run.refuse(where, target.why)));
    return;
  }
  if (client.destroyed || run.closed()) return;
  const bare = authority.host.replace(/^\[(.*)\]$/, '$1');
  if (terminating !== undefined && credentialsFor(run.credentials, bare).length > 0) {
    await terminate(client, head, bare, terminating.termination, terminating.server, terminating.targets, { host: bare, port: authority.port, address: target.address });
    return;
  }
  const upstream = net.connect({ host: target.address, port: authority.port });
  run.track(upstream);
  upstream.setTimeout(run.settings.connectTimeoutMs, () => upstream.destroy(new Error('connect timeout')));
  upstream.once('connect', () => {
    // Connected: from now on both ends share the idle bound.
    upstream.setTimeout(run.settings.idleMs, () => {
      upstream.destroy();
      client.destroy();
    });
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.once('error', (/** @type {NodeJS.ErrnoException} */ error) => {
    if (client.writable && upstream.bytesRead === 0) client.end(rawAnswer(502, 'Bad Gateway', `${where}: ${error.code ?? error.message}\n`));
    else client.destroy();
  });
  client.once('close', () => upstream.destroy());
}

/**
 * A plain `GET http://…` through the proxy: refused, or sent on with hop-by-hop headers gone and the body guarded.
 * @param {ProxyRun} run @param {http.IncomingMessage} request @param {http.ServerResponse} response
 */
async function onRequest(run, request, response) {
  const answer = answerer(response);
  /** @type {URL} */
  let url;
  try {
    url = new URL(request.url ?? '');
  } catch {
    answer(400, 'a proxy request needs an absolute http:// URL\n');
    return;
  }
  if (url.protocol !== 'http:') {
    answer(400, `use CONNECT for ${url.protocol} URLs\n`);
    return;
  }
  const port = url.port === '' ? 80 : Number(url.port);
  const where = `${url.hostname}:${port}`;
  const target = await run.resolveTarget(url.hostname);
  if (!target.ok) {
    answer(403, run.refuse(where, target.why));
    return;
  }
  const leaked = leakIn(run.credentials, url.hostname, requestHead(request));
  if (leaked !== undefined) {
    answer(403, run.leak(where, leaked.env));
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
    timeout: run.settings.idleMs,
  });
  upstream.on('socket', run.track);
  upstream.once('timeout', () => upstream.destroy(new Error('timeout')));
  upstream.once('response', (reply) => relayReply(reply, response, answer, where, []));
  upstream.once('error', (/** @type {NodeJS.ErrnoException} */ error) => answer(502, `${where}: ${error.code ?? error.message}\n`));
  request.on('error', () => upstream.destroy());
  response.once('close', () => upstream.destroy());
  pipeGuarded(request, upstream, run.credentials, url.hostname, (env) => answer(403, run.leak(where, env)));
}

/**
 * Runs a handler so that nothing it throws (now or later in its promise) leaves it: the one connection ends.
 * @param {import('node:stream').Duplex | null} socket
 * @param {() => Promise<void>} handler
 */
async function guarded(socket, handler) {
  try {
    await handler();
  } catch {
    socket?.destroy();
  }
}
