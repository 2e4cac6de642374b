import type { FakeUsage } from './assistantMessage.ts';
import type { FaultKind } from './faults.ts';
import type { MessagesRequest } from './requestSchema.ts';

export type RequestOutcome = 'ok' | 'invalid' | 'brain_error' | FaultKind;

/** One request as the fake saw it and answered it. The entry is recorded on arrival and completed in place. */
export interface RecordedRequest {
  /** 0-based arrival order among all requests, retries included. */
  seq: number;
  method: string;
  path: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The credential, from `x-api-key` or `authorization: Bearer …` (the SDK 1.x sends the latter). */
  apiKey: string | undefined;
  rawBody: string;
  /** The validated body; undefined when it was not JSON or failed the schema (rule refusals keep it). */
  body: MessagesRequest | undefined;
  stream: boolean;
  /** HTTP status sent; 0 while unanswered (and for ever for 'hang'). */
  status: number;
  outcome: RequestOutcome | 'pending';
  /** The error message sent, for refused and failed requests. */
  error?: string;
  /** The usage reported (ok, cut and stream_error requests, which the API bills). */
  usage?: FakeUsage;
  /** The brain's index for this request (ok requests only). */
  brainIndex?: number;
}

export interface CacheStats {
  /** Requests that reported usage. */
  requests: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** cacheRead / (input + cacheRead + cacheCreation); 0 with no tokens. */
  readShare: number;
}

/** Totals over every request that reported usage, for tests and benches that measure caching. */
export function summariseCache(requests: readonly RecordedRequest[]): CacheStats {
  const billed = requests.flatMap((record) => (record.usage ? [record.usage] : []));
  const sum = (pick: (usage: FakeUsage) => number): number => billed.reduce((total, usage) => total + pick(usage), 0);
  const inputTokens = sum((usage) => usage.input_tokens);
  const cacheReadTokens = sum((usage) => usage.cache_read_input_tokens);
  const cacheCreationTokens = sum((usage) => usage.cache_creation_input_tokens);
  const all = inputTokens + cacheReadTokens + cacheCreationTokens;
  return { requests: billed.length, inputTokens, cacheReadTokens, cacheCreationTokens, readShare: all === 0 ? 0 : cacheReadTokens / all };
}
