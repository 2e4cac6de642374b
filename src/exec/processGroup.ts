// Signals a whole process group. The child is spawned detached, so it leads its own group (pgid = its pid) and
// everything it starts, unless it calls setsid itself, can be reached with one kill(-pgid).

/** Sends `signal` to every process in the group. A group already gone is fine; any other failure is returned. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): NodeJS.ErrnoException | undefined {
  try {
    process.kill(-pgid, signal);
    return undefined;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    return failure.code === 'ESRCH' ? undefined : failure;
  }
}
