// Bounds how many skill processes run at once; callers past the bound wait their turn in order.

/** A held slot: its number (0 … limit-1, unique among holders) and how to give it back. */
export interface Slot {
  index: number;
  /** Releasing twice is harmless. */
  release(): void;
}

export class Semaphore {
  private readonly free: number[];
  private readonly waiting: ((index: number) => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a semaphore needs a limit of at least 1, got ${limit}`);
    this.free = Array.from({ length: limit }, (_, index) => index);
  }

  /** Resolves with a slot once one is free, or with undefined if `signal` aborts first (the wait is given up). */
  async acquire(signal?: AbortSignal): Promise<Slot | undefined> {
    const ready = this.free.shift();
    // The releasing holder hands its slot straight to the first waiter.
    const index = ready ?? (await this.wait(signal));
    if (index === undefined) return undefined;
    let released = false;
    return {
      index,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        if (next !== undefined) next(index);
        else this.free.push(index);
      },
    };
  }

  private wait(signal: AbortSignal | undefined): Promise<number | undefined> {
    if (signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const take = (index: number): void => {
        signal?.removeEventListener('abort', giveUp);
        resolve(index);
      };
      const giveUp = (): void => {
        const at = this.waiting.indexOf(take);
        if (at !== -1) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(take);
    });
  }

  /** No holder and no waiter. */
  idle(): boolean {
    return this.free.length === this.limit && this.waiting.length === 0;
  }
}

/** One semaphore per key (a chat), made on first use and dropped when idle again. */
export class KeyedSemaphore {
  private readonly byKey = new Map<string, Semaphore>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a per-key bound must be at least 1, got ${limit}`);
  }

  async acquire(key: string, signal?: AbortSignal): Promise<Slot | undefined> {
    let semaphore = this.byKey.get(key);
    if (semaphore === undefined) {
      semaphore = new Semaphore(this.limit);
      this.byKey.set(key, semaphore);
    }
    const held = semaphore;
    const slot = await held.acquire(signal);
    const forget = (): void => {
      if (held.idle() && this.byKey.get(key) === held) this.byKey.delete(key);
    };
    if (slot === undefined) {
      forget();
      return undefined;
    }
    return {
      index: slot.index,
      release: () => {
        slot.release();
        forget();
      },
    };
  }
}
