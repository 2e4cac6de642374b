// The book of routines and hooks: one store record, read in one operation, changed by compare-and-set.
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/types.ts';
import { type Book, bookSchema, type LastRun, lastRunSchema } from './records.ts';

const KEY = 'book';
/** The book has no natural end; a claim needs a TTL, so: a century. */
const FOREVER_MS = 100 * 365 * 24 * 3_600_000;
/** Last results are kept this long after a routine's latest run. */
const LAST_RUN_MS = 30 * 24 * 3_600_000;
const EMPTY: Book = { status: 'empty', routines: [], hooks: [] };

export class BookConflict extends Error {
  override name = 'BookConflict';
}

export class RoutineBook {
  constructor(private readonly store: Store) {}

  /** The whole book (one store read). A record that fails its schema is a store error, not an empty book. */
  async read(): Promise<Book> {
    const raw = await this.store.get<unknown>('routines', KEY);
    if (raw === undefined) return EMPTY;
    const parsed = bookSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`the routines book in the store is not valid: ${parsed.error.issues[0]?.message ?? 'bad record'}`);
    return parsed.data;
  }

  /**
   * Applies `change` to the current book and writes it only if nobody changed it in between (retried a few
   * times). `change` returns the new book and a result, or only a result (nothing to write).
   */
  async update<T>(change: (book: Book) => { book?: Omit<Book, 'status'>; result: T }): Promise<T> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const current = await this.read();
      const { book, result } = change(current);
      if (book === undefined) return result;
      const next: Book = { ...book, status: randomUUID() };
      const written = current.status === EMPTY.status
        ? await this.store.claim('routines', KEY, next, FOREVER_MS)
        : await this.store.compareAndSet('routines', KEY, current.status, next);
      if (written) return result;
    }
    throw new BookConflict('the routines changed too often at once; try again');
  }

  async lastRun(id: string): Promise<LastRun | undefined> {
    const parsed = lastRunSchema.safeParse(await this.store.get<unknown>('routines', `last:${id}`));
    return parsed.success ? parsed.data : undefined;
  }

  async setLastRun(id: string, run: LastRun): Promise<void> {
    await this.store.set('routines', `last:${id}`, run, LAST_RUN_MS);
  }

  async forget(id: string): Promise<void> {
    await this.store.delete('routines', `last:${id}`);
  }
}
