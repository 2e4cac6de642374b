// isomorphic-git's HTTP client, bounded and guarded: every byte read from the network counts against one budget,
// one abort signal (the fetch's deadline) ends every request, and every connection goes only to an address the
// guard allows (sourceAddress.ts: the check is in the connection's own lookup). Redirects are never followed: a
// git server that redirects elsewhere (a private address included) is refused rather than trusted to pick the host.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { mib, OverBound } from './bounds.ts';
import { checkLiteral, type FetchGuard, guardedLookup } from './sourceAddress.ts';

export interface BoundedHttp extends HttpClient {
  /** Bytes received so far. */
  readonly received: () => number;
}

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  if (body === undefined) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

function send(url: URL, method: string, headers: Record<string, string>, body: Uint8Array | undefined, signal: AbortSignal, guard: FetchGuard): Promise<IncomingMessage> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new Error(`${url.protocol} is not http or https`));
  checkLiteral(guard, url.hostname);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      // No shared agent: a pooled socket must not outlive the check of the address it was opened to.
      { method, headers: { ...headers, 'user-agent': 'skillbot-install' }, signal, agent: false, lookup: guardedLookup(guard) },
      resolve,
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : Buffer.from(body));
  });
}

export function boundedHttp(maxBytes: number, signal: AbortSignal, guard: FetchGuard): BoundedHttp {
  let received = 0;
  return {
    received: () => received,
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const body = await collect(request.body);
      const method = request.method ?? 'GET';
      const response = await send(new URL(request.url), method, request.headers ?? {}, body, signal, guard);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.resume();
        throw new Error(`the server redirects to ${response.headers.location ?? 'elsewhere'}; give that address instead`);
      }
      async function* chunks(): AsyncIterableIterator<Uint8Array> {
        for await (const value of response as AsyncIterable<Buffer>) {
          received += value.byteLength;
          if (received > maxBytes) {
            response.destroy();
            throw new OverBound(`the repository is larger than the ${mib(maxBytes)} a download may be`);
          }
          yield value;
        }
      }
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(response.headers)) if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
      return { url: request.url, method, headers, body: chunks(), statusCode: status, statusMessage: response.statusMessage ?? '' };
    },
  };
}
