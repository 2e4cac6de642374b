// A sliding window of amounts (turns, tokens) per key, counted in the store: every instance adds to the same
// record, atomically (compare-and-set on a version, retried when another instance wrote in between).
import type { Store } from '../store/types.ts';

/** One counted thing: its id (a message's delivery key, a turn id: counting it twice is a no-op), when, how much. */
type Entry = [id: string, at: number, amount: number];

interface WindowRecord {
  /** The record's version: compare-and-set wants a `status`. */
  status: string;
  entries: Entry[];
}

export interface WindowState {
  total: number;
  /** When an amount of `wanted` would fit under `limit` again (epoch ms); only when it does not now. */
  retryAt?: number;
}

const MAX_ATTEMPTS = 25;

function live(record: WindowRecord | undefined, now: number, windowMs: number): Entry[] {
  return (record?.entries ?? []).filter((entry) => entry[1] > now - windowMs).sort((a, b) => a[1] - b[1]);
}

function sum(entries: readonly Entry[]): number {
  return entries.reduce((total, entry) => total + entry[2], 0);
}

/** The moment enough of the oldest entries have left the window for `wanted` more to fit under `limit`. */
function fitsAgainAt(entries: readonly Entry[], wanted: number, limit: number, windowMs: number): number | undefined {
  let total = sum(entries);
  for (const entry of entries) {
    total -= entry[2];
    if (total + wanted <= limit) return entry[1] + windowMs;
  }
  return undefined;
}

export class SlidingWindows {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the window holds now, and (with a limit) when `wanted` more would fit. Reads only. */
  async state(key: string, windowMs: number, limit?: number, wanted = 1): Promise<WindowState> {
    const entries = live(await this.store.get<WindowRecord>('usage', key), this.now(), windowMs);
    const total = sum(entries);
    if (limit === undefined || total + wanted <= limit) return { total };
    const retryAt = fitsAgainAt(entries, wanted, limit, windowMs);
    return retryAt === undefined ? { total } : { total, retryAt };
  }

  /**
   * Adds `amount` under `id` unless that would pass `limit` (then nothing changes and `ok` is false). Of
   * instances adding at once, each sees the others' amounts: the limit holds across them.
   */
  async take(key: string, id: string, amount: number, windowMs: number, limit?: number): Promise<WindowState & { ok: boolean }> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = this.now();
      const record = await this.store.get<WindowRecord>('usage', key);
      const entries = live(record, now, windowMs);
      const total = sum(entries);
      if (entries.some((entry) => entry[0] === id)) return { ok: true, total };
      if (limit !== undefined && total + amount > limit) {
        const retryAt = fitsAgainAt(entries, amount, limit, windowMs);
        return { ok: false, total, ...(retryAt === undefined ? {} : { retryAt }) };
      }
      const next: WindowRecord = { status: String(Number(record?.status ?? '0') + 1), entries: [...entries, [id, now, amount]] };
      const written = record === undefined ? await this.store.claim('usage', key, next, windowMs) : await this.store.compareAndSet('usage', key, record.status, next, windowMs);
      if (written) return { ok: true, total: total + amount };
    }
    throw new Error(`the window ${key} kept changing under ${MAX_ATTEMPTS} attempts to add to it`);
  }
}
