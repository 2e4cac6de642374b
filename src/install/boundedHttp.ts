// isomorphic-git's HTTP client, bounded and guarded: every byte read from the network counts against one budget,
// one abort signal (the fetch's deadline) ends every request, and every connection goes only to an address the
// guard allows (sourceAddress.ts: the check is in the connection's own lookup). Redirects are never followed: a
// git server that redirects elsewhere (a private address included) is refused rather than trusted to pick the host.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { mib, OverBound } from './bounds.ts';
import { checkPack, type PackBounds, packOfResponse } from './packCheck.ts';
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

function send(url: URL, method: string, headers: Record<string, string>, body: Uint8Array | undefined, signal: AbortSignal, forAny: FetchGuard): Promise<IncomingMessage> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new Error(`${url.protocol} is not http or https`));
  const guard = forAny.forUrl(url);
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

/** The whole of a response, read within the budget (`count` adds each chunk to it and throws past it). */
async function readAll(response: IncomingMessage, count: (bytes: number) => void): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const value of response as AsyncIterable<Buffer>) {
    count(value.byteLength);
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/**
 * `pack`: the bounds each object of a pack is checked against (packCheck.ts). The pack's response is then read
 * whole, within the download budget, and handed on only once every object fits.
 */
export function boundedHttp(maxBytes: number, signal: AbortSignal, guard: FetchGuard, pack?: PackBounds): BoundedHttp {
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
        // Where it points is the server's text: not repeated to the person (it may be anything).
        throw new OverBound(`the server answered a redirect (${status}), which the bot does not follow; give the address the repository is at`);
      }
      const count = (bytes: number) => {
        received += bytes;
        if (received > maxBytes) {
          response.destroy();
          throw new OverBound(`the repository is larger than the ${mib(maxBytes)} a download may be`);
        }
      };
      if (pack !== undefined && method === 'POST' && new URL(request.url).pathname.endsWith('/git-upload-pack') && status === 200) {
        const whole = await readAll(response, count);
        const data = packOfResponse(whole);
        const problem = typeof data === 'string' ? data : await checkPack(data, pack);
        if (problem !== undefined) throw new OverBound(problem);
        return { url: request.url, method, headers: headersOf(response), body: (async function* () { yield whole; })(), statusCode: status, statusMessage: response.statusMessage ?? '' };
      }
      async function* chunks(): AsyncIterableIterator<Uint8Array> {
        for await (const value of response as AsyncIterable<Buffer>) {
          count(value.byteLength);
          yield value;
        }
      }
      return { url: request.url, method, headers: headersOf(response), body: chunks(), statusCode: status, statusMessage: response.statusMessage ?? '' };
    },
  };
}

function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers)) if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}
