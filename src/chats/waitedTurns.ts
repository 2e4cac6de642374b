/**
 * Turns whose submitter waits here for the outcome (the terminal chat, the benchmark, the tests' harness). They go
 * through the same durable queue as platform messages; the dispatcher settles each as it finishes the turn.
 * Platform turns are answered through their sink alone: nobody waits, and settling them costs a map lookup.
 * One per dispatcher (so per app): no state lives in this module.
 */
export class WaitedTurns<Outcome> {
  readonly #waiting = new Map<string, { resolve: (outcome: Outcome) => void; reject: (error: Error) => void }>();

  /** Waits for turn `turnId`. Called when its message is queued, before any instance can have run it. */
  wait(turnId: string): Promise<Outcome> {
    return new Promise((resolve, reject) => this.#waiting.set(turnId, { resolve, reject }));
  }

  /** The turn ran here to its end: its submitter, if any, gets the outcome. */
  finished(turnId: string, outcome: Outcome): void {
    this.#waiting.get(turnId)?.resolve(outcome);
    this.#waiting.delete(turnId);
  }

  /** The turn will not run here (an earlier run answered it): its submitter, if any, is told why. */
  failed(turnId: string, error: Error): void {
    this.#waiting.get(turnId)?.reject(error);
    this.#waiting.delete(turnId);
  }

  /** This instance stopped taking turns: the ones not run here never will be, so their submitters are told. */
  abandon(error: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(error);
    this.#waiting.clear();
  }
}
