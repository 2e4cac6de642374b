import { type default as Anthropic, APIError } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';

/** The model stayed unreachable (or overloaded) through every retry. */
export class ModelUnavailableError extends Error {
  override name = 'ModelUnavailableError';
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
  }
}

/** The API refused the request itself (bad key, bad model id): retrying cannot help. */
export class ModelRequestError extends Error {
  override name = 'ModelRequestError';
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 8_000 };

export interface StreamCallbacks {
  onText?: (delta: string) => void;
  /** A retry is about to happen; text streamed so far for this call is void. */
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
}

/** The turn was stopped while waiting on the model: not a failure, and never retried. */
export class ModelCallAborted extends Error {
  override name = 'ModelCallAborted';
}

/** Waits `ms`, or less when `signal` aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** An HTTP answer worth retrying; anything else thrown (connection lost, timeout, stream cut midway) is too. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait the API asked for, if any (`retry-after-ms` first, then `retry-after` in seconds). */
function headerDelayMs(error: unknown): number | undefined {
  if (!(error instanceof APIError) || !error.headers) return undefined;
  const ms = error.headers.get('retry-after-ms');
  if (ms !== null && Number(ms) >= 0) return Number(ms);
  const seconds = error.headers.get('retry-after');
  if (seconds !== null && Number(seconds) >= 0) return Number(seconds) * 1000;
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof APIError) {
    const first = error.message.split('\n')[0];
    // A connection error has no status: say so rather than print "HTTP undefined".
    return error.status === undefined ? `no HTTP answer: ${first}` : `HTTP ${error.status} ${first}`;
  }
  return error instanceof Error ? error.message.split('\n')[0] ?? error.name : String(error);
}

function requestError(error: APIError): ModelRequestError {
  const hint =
    error.status === 401 ? ' (check ANTHROPIC_API_KEY)' : error.status === 404 ? ' (check SKILLBOT_MODEL)' : '';
  return new ModelRequestError(`The model API refused the request: ${describe(error)}${hint}`, error.status);
}

/**
 * One streamed Messages API call with one retry policy for everything transient: 429, 529, 5xx, connection
 * errors and a stream cut midway. The SDK's own retries are off so the policy lives in one place.
 */
export async function streamMessage(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  callbacks: StreamCallbacks = {},
  policy: RetryPolicy = DEFAULT_RETRY,
  signal?: AbortSignal,
): Promise<Message> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    if (signal?.aborted) throw new ModelCallAborted('the turn was stopped');
    try {
      // The signal reaches the SDK's fetch: stopping a turn ends its stream at once.
      const stream = client.messages.stream(params, { maxRetries: 0, ...(signal ? { signal } : {}) });
      if (callbacks.onText) stream.on('text', callbacks.onText);
      return await stream.finalMessage();
    } catch (error) {
      if (signal?.aborted) throw new ModelCallAborted('the turn was stopped');
      lastError = error;
      if (error instanceof APIError && error.status !== undefined && !retryableStatus(error.status)) throw requestError(error);
      if (attempt === policy.maxAttempts) break;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delay = Math.min(policy.maxDelayMs, headerDelayMs(error) ?? backoff * (0.5 + Math.random() / 2));
      callbacks.onRetry?.(attempt, describe(error), delay);
      await sleep(delay, signal);
    }
  }
  throw new ModelUnavailableError(
    `The model did not answer after ${policy.maxAttempts} attempts (last: ${describe(lastError)}).`,
    policy.maxAttempts,
  );
}
