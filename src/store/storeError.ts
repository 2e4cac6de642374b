/**
 * A failure of the backing store (disk, database, network). Always thrown, never turned into "not found":
 * a caller that reads `undefined` must be able to trust that the record is really absent.
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** Runs one store operation and rethrows any failure as a StoreError naming the backend and the operation. */
export async function storeOperation<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreError(`${what} failed: ${reason}`, { cause: error });
  }
}
