// Where the bot's own HTTP for one MCP server may go. The configured server's origin (the operator wrote it:
// loopback and private addresses allowed) and, when given, its pinned authorization server's origin are reached
// as they are. Every other URL a server names (its 401's resource metadata, the authorization server it points
// to, that server's registration and token endpoints) is fetched only over https, only from public addresses as
// the egress proxy decides (src/exec/addressPolicy.mjs; the check sits in the connection's own DNS lookup, so a
// name that resolves elsewhere a moment later gains nothing). Redirects are followed within an origin only.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/client';
import { addressPolicy, type AddressPolicy, ownAddresses } from '../exec/addressPolicy.mjs';

const MAX_REDIRECTS = 5;

export class RefusedUrl extends Error {
  override name = 'RefusedUrl';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A lookup that refuses a name any of whose addresses the policy refuses. */
function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.map(({ address }) => policy.refuses(address, hostname)).find((why) => why !== undefined);
      if (refused !== undefined) return callback(new RefusedUrl(`${hostname} is not a public address (${refused})`), []);
      if (options.all === true) return callback(null, addresses);
      const [first] = addresses;
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

function bodyOf(body: RequestInit['body']): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new RefusedUrl('a request body of an unexpected kind');
}

/** One request off the server's origin, through node:https with the guarded lookup (no redirect followed). */
function publicRequest(url: URL, init: RequestInit | undefined, policy: AddressPolicy): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const why = policy.refuses(host);
    if (why !== undefined) return Promise.reject(new RefusedUrl(`${host} is not a public address (${why})`));
  }
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  const body = bodyOf(init?.body);
  if (body !== undefined && body.length > 0 && headers['content-type'] === undefined && init?.body instanceof URLSearchParams) headers['content-type'] = 'application/x-www-form-urlencoded';
  return new Promise((resolve, reject) => {
    const options = { method: init?.method ?? 'GET', headers, lookup: guardedLookup(policy), agent: false as const, ...(init?.signal ? { signal: init.signal } : {}) };
    const request = httpsRequest(url, options, (response: IncomingMessage) => {
      const status = response.statusCode ?? 502;
      const empty = [101, 204, 205, 304].includes(status) || options.method === 'HEAD';
      const answer = new Headers();
      for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) answer.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
      if (empty) response.resume();
      resolve(new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), { status, statusText: response.statusMessage ?? '', headers: answer }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const isLoopbackName = (host: string) => ['localhost', '127.0.0.1', '[::1]', '::1'].includes(host);

/**
 * The fetch for one server's HTTP and OAuth. `pinned` is the operator's `oauth.authorizationServer`: with it, an
 * authorization server the server names elsewhere is refused.
 */
export function serverFetch(serverUrl: string, pinned?: string, inner: FetchLike = fetch, hostAddresses: () => string[] = ownAddresses): FetchLike {
  const trusted = new Set([new URL(serverUrl).origin, ...(pinned === undefined ? [] : [new URL(pinned).origin])]);
  const policy = addressPolicy([], hostAddresses);
  const once = (url: URL, init: RequestInit | undefined): Promise<Response> => {
    if (trusted.has(url.origin)) return inner(url, { ...init, redirect: 'manual' });
    if (pinned !== undefined) {
      return Promise.reject(new RefusedUrl(`${url.origin} is not the authorization server pinned for this server (${new URL(pinned).origin})`));
    }
    if (url.protocol !== 'https:') return Promise.reject(new RefusedUrl(`${url.origin} is plain http off the server's own origin${isLoopbackName(url.hostname) ? ' (and the host\'s loopback)' : ''}`));
    return publicRequest(url, init, policy);
  };
  return async (input, init) => {
    let url = new URL(input);
    for (let hop = 0; ; hop++) {
      const response = await once(url, init);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      const next = new URL(location, url);
      await response.body?.cancel().catch(() => undefined);
      if (next.origin !== url.origin) throw new RefusedUrl(`${url.origin} redirected to another origin (${next.origin}); redirects are followed within an origin only`);
      if (hop >= MAX_REDIRECTS) throw new RefusedUrl(`${url.origin} redirected more than ${MAX_REDIRECTS} times`);
      url = next;
    }
  };
}
