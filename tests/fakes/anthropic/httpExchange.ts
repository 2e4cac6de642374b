import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlannedFault } from './faults.ts';

// The few ways the fake talks HTTP: the API's error body, retry headers, and writes that survive a
// client that has gone away.

export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'rate_limit_error'
  | 'api_error' | 'overloaded_error';

export function sendError(res: ServerResponse, status: number, type: ErrorType, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

export function httpFaultHeaders(fault: PlannedFault): Record<string, string> {
  if (fault.kind !== '429' && fault.kind !== '529' && fault.kind !== '500') return {};
  const ms = 'retryAfterMs' in fault ? fault.retryAfterMs : undefined;
  const headers: Record<string, string> = {};
  if (ms !== null) headers['retry-after-ms'] = String(ms ?? 5);
  if (fault.kind === '429') headers['retry-after'] = String(('retryAfterSeconds' in fault ? fault.retryAfterSeconds : undefined) ?? 1);
  return headers;
}

/** Resolves once the chunk is handed to the socket, or once the connection is gone. */
export function writeChunk(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    res.once('close', resolve);
    res.write(chunk, () => {
      res.off('close', resolve);
      resolve();
    });
  });
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
