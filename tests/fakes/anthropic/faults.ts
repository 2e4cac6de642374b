/**
 * Failures the fake produces on demand:
 * - '429' rate_limit_error, '529' overloaded_error, '500' api_error: HTTP errors the SDK retries;
 * - 'cut': a 200 stream that sends message_start and a few deltas, then destroys the socket;
 * - 'stream_error': a 200 stream that sends message_start, then an `event: error` overloaded_error
 *   (the API does this under load);
 * - 'hang': headers never come; the request waits until the client gives up or the fake closes.
 */
export type FaultKind = '429' | '529' | '500' | 'cut' | 'stream_error' | 'hang';

export type HttpFault = {
  kind: '429' | '529' | '500';
  /**
   * Sent as `retry-after-ms`, which the SDK obeys before `retry-after`. Defaults to 5 so tests do not wait
   * the SDK's own 0.5 s to 8 s backoff; null sends no retry header, as the API does for 500.
   */
  retryAfterMs?: number | null;
  /** Sent as `retry-after` (seconds) on a 429; defaults to 1, as the API sends whole seconds. */
  retryAfterSeconds?: number;
};

export type Fault = FaultKind | HttpFault | { kind: 'cut'; afterDeltas?: number } | { kind: 'stream_error' | 'hang' };

export type PlannedFault = Exclude<Fault, FaultKind>;

export interface FaultRateOptions {
  /** Probability in [0, 1] that a request fails. */
  rate: number;
  /** Which faults to draw from, uniformly. Default: 429, 529, cut. */
  kinds?: FaultKind[];
  /** Seed of the generator, so a failing run replays the same faults. Default 1. */
  seed?: number;
}

/** mulberry32: tiny, fast and good enough to pick faults reproducibly (the Slack fake uses it too). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Faults queued by failNext come first, in order; then, if a rate is set, seeded random ones. */
export class FaultPlan {
  readonly #queue: PlannedFault[] = [];
  #random: { rate: number; kinds: FaultKind[]; next: () => number } | null = null;

  queue(faults: Fault[]): void {
    this.#queue.push(...faults.map((fault) => (typeof fault === 'string' ? { kind: fault } : fault)));
  }

  setRate(options: FaultRateOptions | null): void {
    if (options && !(options.rate >= 0 && options.rate <= 1)) throw new RangeError('rate must be within [0, 1]');
    const kinds = options?.kinds ?? ['429', '529', 'cut'];
    if (kinds.length === 0) throw new RangeError('kinds must name at least one fault');
    this.#random = options ? { rate: options.rate, kinds, next: seededRandom(options.seed ?? 1) } : null;
  }

  /** The fault for the next request, if it gets one. */
  next(): PlannedFault | undefined {
    const queued = this.#queue.shift();
    if (queued) return queued;
    if (!this.#random) return undefined;
    const { rate, kinds, next } = this.#random;
    // Two draws per request whatever the outcome, so the pattern depends only on the request count.
    const hit = next() < rate;
    const kind = kinds[Math.floor(next() * kinds.length)];
    return hit && kind ? { kind } : undefined;
  }
}
