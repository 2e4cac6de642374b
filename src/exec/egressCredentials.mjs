// @ts-check
// Credential injection in the egress proxy (egressServer.mjs): the sandbox holds `skillbot-credential-<env>`; on a
// request to a credential's host, which the proxy sees in clear because it terminates that CONNECT with a leaf of
// the installation's CA, the proxy sets the credential's header to the real value, and sends the request on over
// TLS verified against the system store (+ the bot's NODE_EXTRA_CA_CERTS). A placeholder on a request to any other
// host, in its URL, a header or its body, is refused. Other CONNECTs stay tunnels the proxy cannot read.
import http from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import tls from 'node:tls';

/** @typedef {{ host: string; header: string; value: string; env: string }} Credential */
/** @typedef {(host: string) => Promise<tls.SecureContext>} LeafContexts */
/** @typedef {{ leaf: LeafContexts; upstream: tls.SecureContext }} Termination */

export const PLACEHOLDER_PREFIX = 'skillbot-credential-';

/** @param {string} env */
export const placeholderOf = (env) => `${PLACEHOLDER_PREFIX}${env}`;

/**
 * Whether `host` is covered by `pattern` (an exact name, or `*.example.com` for names under it).
 * @param {string} pattern @param {string} host
 */
export function hostMatches(pattern, host) {
  const name = host.toLowerCase().replace(/\.$/, '');
  return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern;
}

/** @param {readonly Credential[]} credentials @param {string} host */
export const credentialsFor = (credentials, host) => credentials.filter((credential) => hostMatches(credential.host, host));

/**
 * The first credential whose placeholder is in `text` but whose host is not `host`: what a request must not carry.
 * @param {readonly Credential[]} credentials @param {string} host @param {string} text
 */
export function leakIn(credentials, host, text) {
  if (!text.includes(PLACEHOLDER_PREFIX)) return undefined;
  return credentials.find((credential) => text.includes(placeholderOf(credential.env)) && !hostMatches(credential.host, host));
}

/** A request's URL and headers as one text to look for placeholders in. @param {http.IncomingMessage} request */
export const requestHead = (request) => `${request.url ?? ''}\n${request.rawHeaders.join('\n')}`;

/**
 * Passes a body on, but errors (before passing the chunk on) when a placeholder of a credential for another host
 * shows in it, across chunk bounds too.
 * @param {readonly Credential[]} credentials @param {string} host @param {(leaked: Credential) => void} onLeak
 */
export function bodyGuard(credentials, host, onLeak) {
  const others = credentials.filter((credential) => !hostMatches(credential.host, host));
  const keep = Math.max(0, ...others.map((credential) => placeholderOf(credential.env).length)) - 1;
  let tail = Buffer.alloc(0);
  return new Transform({
    transform(chunk, _encoding, done) {
      const seen = Buffer.concat([tail, chunk]);
      const leaked = others.length === 0 ? undefined : leakIn(others, host, seen.toString('latin1'));
      if (leaked !== undefined) {
        onLeak(leaked);
        done(new Error('credential placeholder in the body'));
        return;
      }
      tail = keep <= 0 ? Buffer.alloc(0) : seen.subarray(Math.max(0, seen.length - keep));
      done(null, chunk);
    },
  });
}

/**
 * The request's headers for upstream: hop-by-hop ones gone, each matching credential's header set to its value
 * (whatever the request had there, in any case), the Host kept.
 * @param {http.IncomingHttpHeaders} headers @param {readonly Credential[]} matching @param {readonly string[]} hopByHop
 */
export function injectedHeaders(headers, matching, hopByHop) {
  /** @type {Record<string, string | string[]>} */
  const out = {};
  const replaced = new Set(matching.map((credential) => credential.header.toLowerCase()));
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.includes(name) || replaced.has(name)) continue;
    out[name] = value;
  }
  for (const credential of matching) out[credential.header] = credential.value;
  return out;
}

/**
 * Terminates one CONNECT to a credential host: answers 200, speaks TLS to the client with a leaf for `host`, and
 * hands the connection to `server` (an http.Server whose request handler forwards with `forward`).
 * @param {import('node:stream').Duplex} client @param {Buffer} head @param {string} host @param {Termination} termination
 * @param {http.Server} server @param {WeakMap<object, { host: string; port: number; address: string }>} targets
 * @param {{ host: string; port: number; address: string }} target
 */
export async function terminate(client, head, host, termination, server, targets, target) {
  const context = await termination.leaf(host);
  if (client.destroyed) return;
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) client.unshift(head);
  const secure = new tls.TLSSocket(/** @type {import('node:net').Socket} */ (client), { isServer: true, secureContext: context, ALPNProtocols: ['http/1.1'] });
  secure.on('error', () => client.destroy());
  targets.set(secure, target);
  server.emit('connection', secure);
}

/**
 * Sends a terminated request on to its host over TLS (the system store + the bot's extra CAs), with the address the
 * proxy checked, the name it was asked for as SNI and for the certificate check.
 * @param {{ host: string; port: number; address: string }} target @param {http.IncomingMessage} request
 * @param {Record<string, string | string[]>} headers @param {Termination} termination @param {https.Agent} agent
 */
export function forwardTls(target, request, headers, termination, agent) {
  /** @type {https.RequestOptions & { secureContext: tls.SecureContext }} */
  const options = {
    host: target.address,
    port: target.port,
    servername: target.host,
    secureContext: termination.upstream,
    method: request.method,
    path: request.url,
    // The host the CONNECT named, whatever the request says: the credential goes to that site only.
    headers: { ...headers, host: target.port === 443 ? target.host : `${target.host}:${target.port}` },
    setHost: false,
    agent,
  };
  return https.request(options);
}

/**
 * Answers a proxied request with a plain-text status, once; a response already under way is cut instead.
 * @param {http.ServerResponse} response
 */
export function answerer(response) {
  /** @param {number} status @param {string} text */
  return (status, text) => {
    if (response.writableEnded) return;
    if (response.headersSent) response.destroy();
    else response.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) }).end(text);
  };
}

/**
 * Passes an upstream's answer on to the client, without the headers named in `drop`. A status a response cannot carry
 * (`HTTP/1.1 000`) or headers a proxy cannot write make a 502 instead.
 * @param {http.IncomingMessage} reply @param {http.ServerResponse} response
 * @param {(status: number, text: string) => void} answer @param {string} where @param {readonly string[]} drop
 */
export function relayReply(reply, response, answer, where, drop) {
  const status = reply.statusCode ?? 0;
  if (status < 100 || status > 999) {
    reply.destroy();
    answer(502, `${where} answered an invalid status (${status})\n`);
    return;
  }
  try {
    const headers = drop.length === 0 ? reply.headers : Object.fromEntries(Object.entries(reply.headers).filter(([name]) => !drop.includes(name)));
    response.writeHead(status, reply.statusMessage, headers);
  } catch {
    reply.destroy();
    answer(502, `${where} answered headers a proxy cannot pass on\n`);
    return;
  }
  reply.on('error', () => response.destroy());
  reply.pipe(response);
}

/**
 * Pipes a request's body upstream; with credentials, through a guard that stops it (and the upstream request) before
 * a placeholder meant for another host leaves.
 * @param {http.IncomingMessage} request @param {http.ClientRequest} upstream
 * @param {readonly Credential[]} credentials @param {string} host @param {(env: string) => void} onLeak
 */
export function pipeGuarded(request, upstream, credentials, host, onLeak) {
  if (credentials.length === 0) {
    request.pipe(upstream);
    return;
  }
  const guard = bodyGuard(credentials, host, (leaked) => {
    onLeak(leaked.env);
    upstream.destroy();
  });
  guard.on('error', () => upstream.destroy());
  request.pipe(guard).pipe(upstream);
}

/**
 * The HTTP server of one run's terminated CONNECTs (connections reach it through `terminate`): each request checked
 * for other hosts' placeholders, given its host's credentials, and sent on over TLS with a pooled agent.
 * @param {{ maxConnections: number; idleMs: number }} settings @param {readonly Credential[]} credentials
 * @param {Termination | undefined} termination
 * @param {{ track: (socket: import('node:stream').Duplex) => void; leak: (where: string, env: string) => string; hopByHop: readonly string[] }} hooks
 */
export function terminatedServer(settings, credentials, termination, hooks) {
  /** @type {WeakMap<object, { host: string; port: number; address: string }>} */
  const targets = new WeakMap();
  const agent = new https.Agent({ keepAlive: true, maxSockets: settings.maxConnections, timeout: settings.idleMs });
  const server = http.createServer({ requestTimeout: 0, headersTimeout: settings.idleMs, keepAliveTimeout: settings.idleMs });
  server.on('connection', hooks.track);
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('request', (request, response) => {
    const target = targets.get(/** @type {object} */ (request.socket));
    if (target === undefined || termination === undefined) {
      response.destroy();
      return;
    }
    const where = `${target.host}:${target.port}`;
    const answer = answerer(response);
    const leaked = leakIn(credentials, target.host, requestHead(request));
    if (leaked !== undefined) {
      answer(403, hooks.leak(where, leaked.env));
      return;
    }
    try {
      const upstream = forwardTls(target, request, injectedHeaders(request.headers, credentialsFor(credentials, target.host), hooks.hopByHop), termination, agent);
      upstream.setTimeout(settings.idleMs, () => upstream.destroy(new Error('timeout')));
      // The client's connection is its own: the upstream's hop-by-hop headers (keep-alive) are not passed on.
      upstream.once('response', (reply) => relayReply(reply, response, answer, where, hooks.hopByHop));
      // An upstream certificate the system store does not vouch for is named here (the client saw our leaf).
      upstream.once('error', (/** @type {NodeJS.ErrnoException} */ error) => answer(502, `${where}: ${error.code ?? error.message}\n`));
      request.on('error', () => upstream.destroy());
      response.once('close', () => upstream.destroy());
      pipeGuarded(request, upstream, credentials, target.host, (env) => answer(403, hooks.leak(where, env)));
    } catch {
      response.destroy();
    }
  });
  return { server, targets, agent };
}
