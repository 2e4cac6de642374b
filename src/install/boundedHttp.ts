// isomorphic-git's HTTP client, bounded: every byte read from the network counts against one budget, and one
// abort signal (the fetch's deadline) ends every request. Redirects are not followed: a git server that
// redirects elsewhere is refused rather than trusted to pick the host.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { mib, OverBound } from './bounds.ts';

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

export function boundedHttp(maxBytes: number, signal: AbortSignal): BoundedHttp {
  let received = 0;
  return {
    received: () => received,
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const body = await collect(request.body);
      const response = await fetch(request.url, {
        method: request.method ?? 'GET',
        headers: { ...request.headers, 'user-agent': 'skillbot-install' },
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal,
      });
      if (response.status >= 300 && response.status < 400) {
        throw new Error(`the server redirects to ${response.headers.get('location') ?? 'elsewhere'}; give that address instead`);
      }
      const reader = response.body?.getReader();
      async function* chunks(): AsyncIterableIterator<Uint8Array> {
        if (reader === undefined) return;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += value.byteLength;
          if (received > maxBytes) {
            await reader.cancel().catch(() => undefined);
            throw new OverBound(`the repository is larger than the ${mib(maxBytes)} a download may be`);
          }
          yield value;
        }
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => (headers[key] = value));
      return { url: response.url || request.url, method: request.method ?? 'GET', headers, body: chunks(), statusCode: response.status, statusMessage: response.statusText };
    },
  };
}
