// @ts-check
// One run's egress proxy, inside the egress process (egressProcess.mjs): an HTTP proxy (CONNECT tunnels, and plain
// `GET http://…` requests) on a unix socket bound into the sandbox. It resolves names itself (c-ares, never the
// host's getaddrinfo threads) and connects only to the address it checked, so no name can be re-pointed at the
// host between the check and the connection. Nothing a client or an upstream server sends may throw out of a
// handler: a failure ends that one connection.
import { Resolver } from 'node:dns/promises';
import { chmodSync, chownSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { addressPolicy } from './addressPolicy.mjs';
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

/** @typedef {{ ok: true; address: string } | { ok: false; why: string }} Target */

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
  const credentials = settings.credentials ?? [];
  const { termination } = secrets;
  if (credentials.length > 0 && termination === undefined) throw new Error('credentials need the installation CA, which the egress process was not given');
  const policy = addressPolicy(settings.allow);
  const resolver = new Resolver({ timeout: settings.lookupTimeoutMs, tries: 2 });
  if (settings.dnsServers !== undefined && settings.dnsServers.length > 0) resolver.setServers(settings.dnsServers);
  /** @type {Map<string, Promise<string[]>>} */
  const lookups = new Map();
  /** @type {Set<import('node:stream').Duplex>} */
  const open = new Set();
  /** @type {string[]} */
  const refused = [];
  let closed = false;

  /** @param {import('node:stream').Duplex} socket */
  const track = (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    if (closed) socket.destroy();
  };
  /** @param {string} where @param {string} why */
  const refuse = (where, why) => {
    if (refused.length < MAX_REFUSALS_KEPT && !refused.includes(`${where}: ${why}`)) {
      refused.push(`${where}: ${why}`);
      onRefused(`${where}: ${why}`);
    }
    return `skillbot egress proxy refused ${where} for ${settings.skill}: ${why}\n`;
  };
  /** A placeholder on its way to a host it is not for: refused, and told to the bot. @param {string} where @param {string} env */
  const leak = (where, env) => {
    secrets.onLeak?.(env, where);
    return refuse(where, `the request carries the placeholder of credential ${env}, which is for another host`);
  };

  /**
   * Every address of `name`, each name looked up once per run, at most `maxLookups` names.
   * @param {string} name
   */
  const resolveName = (name) => {
    const known = lookups.get(name);
    if (known !== undefined) return known;
    if (lookups.size >= settings.maxLookups) return Promise.reject(Object.assign(new Error('too many lookups'), { code: `more than ${settings.maxLookups} names in one run` }));
    const both = Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]).then(([v4, v6]) => {
      const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
      if (addresses.length > 0) return addresses;
      throw v4.status === 'rejected' ? v4.reason : new Error('no address');
    });
    lookups.set(name, both);
    return both;
  };

  /**
   * The first address of `host` the policy allows; a literal address is checked as it is.
   * @param {string} host
   * @returns {Promise<Target>}
   */
  const resolveTarget = async (host) => {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(bare) !== 0) {
      const why = policy.refuses(bare);
      return why === undefined ? { ok: true, address: bare } : { ok: false, why };
    }
    /** @type {string[]} */
    let addresses;
    try {
      addresses = await resolveName(bare);
    } catch (error) {
      return { ok: false, why: `the name does not resolve (${/** @type {NodeJS.ErrnoException} */ (error).code ?? 'error'})` };
    }
    let why = 'the name has no address';
    for (const address of addresses) {
      const refusal = policy.refuses(address, bare);
      if (refusal === undefined) return { ok: true, address };
      why = refusal;
    }
    return { ok: false, why };
  };

  const server = http.createServer({ requestTimeout: 0, headersTimeout: settings.idleMs, keepAliveTimeout: settings.idleMs });
  server.maxConnections = settings.maxConnections;
  server.on('connection', (socket) => {
    track(socket);
    socket.setTimeout(settings.idleMs, () => socket.destroy());
  });
  // A malformed request line or header ends that connection with a 400, as Node would, and nothing else.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  server.on('connect', (request, client, head) => {
    void guarded(client, async () => {
      const authority = splitAuthority(request.url ?? '');
      if (authority === undefined) {
        client.end(rawAnswer(400, 'Bad Request', 'CONNECT needs host:port\n'));
        return;
      }
      const where = `${authority.host}:${authority.port}`;
      const target = await resolveTarget(authority.host);
      if (!target.ok) {
        client.end(rawAnswer(403, 'Forbidden', refuse(where, target.why)));
        return;
      }
      if (client.destroyed || closed) return;
      const bare = authority.host.replace(/^\[(.*)\]$/, '$1');
      if (termination !== undefined && credentialsFor(credentials, bare).length > 0) {
        await terminate(client, head, bare, termination, terminated, targets, { host: bare, port: authority.port, address: target.address });
        return;
      }
      const upstream = net.connect({ host: target.address, port: authority.port });
      track(upstream);
      upstream.setTimeout(settings.connectTimeoutMs, () => upstream.destroy(new Error('connect timeout')));
      upstream.once('connect', () => {
        // Connected: from now on both ends share the idle bound.
        upstream.setTimeout(settings.idleMs, () => {
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
    });
  });

  server.on('request', (request, response) => {
    void guarded(response.socket, async () => {
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
      const target = await resolveTarget(url.hostname);
      if (!target.ok) {
        answer(403, refuse(where, target.why));
        return;
      }
      const leaked = leakIn(credentials, url.hostname, requestHead(request));
      if (leaked !== undefined) {
        answer(403, leak(where, leaked.env));
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
        timeout: settings.idleMs,
      });
      upstream.on('socket', track);
      upstream.once('timeout', () => upstream.destroy(new Error('timeout')));
      upstream.once('response', (reply) => relayReply(reply, response, answer, where, []));
      upstream.once('error', (/** @type {NodeJS.ErrnoException} */ error) => answer(502, `${where}: ${error.code ?? error.message}\n`));
      request.on('error', () => upstream.destroy());
      response.once('close', () => upstream.destroy());
      pipeGuarded(request, upstream, credentials, url.hostname, (env) => answer(403, leak(where, env)));
    });
  });

  // Requests of the CONNECTs terminated for a credential host: the credential's header set, sent on over TLS.
  const { server: terminated, targets, agent } = terminatedServer(settings, credentials, termination, { track, leak, hopByHop: HOP_BY_HOP });

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
      closed = true;
      resolver.cancel();
      agent.destroy();
      for (const socket of open) socket.destroy();
      server.close();
    },
  };
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
