// Polling for something a test waits on (a process's output, a store record, a file), with a clear timeout.

/**
 * Calls `probe` every 100 ms until it returns a value (a throw counts as not yet); after `ms`, fails naming
 * `what`, followed by `detail()` when given (say, the tail of a child process's stderr).
 */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 40_000, detail?: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve().then(probe).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
