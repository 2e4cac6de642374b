/**
 * One turn at a time per chat: a message that arrives during a turn waits and is answered after it, in order,
 * never dropped; different chats run side by side. An interface, so that a version holding a Redis lease
 * (several instances) can replace the in-process one.
 */
export interface TurnQueue {
  /** Runs `job` after every job enqueued earlier for the same chat has settled; resolves or rejects as it does. */
  enqueue<T>(chatId: string, job: () => Promise<T>): Promise<T>;
  /** Resolves once no job is running or waiting, in any chat. */
  idle(): Promise<void>;
  /** Jobs running or waiting, over all chats. */
  readonly size: number;
}

/** The in-process queue: a promise chain per chat, dropped when the chat's last job settles. */
export class LocalTurnQueue implements TurnQueue {
  /** The settled-never-rejects end of each busy chat's chain. Idle chats have no entry, so many chats cost nothing. */
  readonly #tails = new Map<string, Promise<void>>();
  #size = 0;
  #idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.#size;
  }

  /** Chats with a job running or waiting. */
  get activeChats(): number {
    return this.#tails.size;
  }

  enqueue<T>(chatId: string, job: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(chatId) ?? Promise.resolve();
    // Runs after the previous job settled either way; a job that throws synchronously becomes a rejection.
    const result = previous.then(job);
    // The chain goes on whatever the job did; the caller gets the rejection on `result`, the chain never does.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(chatId, tail);
    this.#size++;
    void tail.then(() => {
      this.#size--;
      if (this.#tails.get(chatId) === tail) this.#tails.delete(chatId);
      if (this.#size === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
    });
    return result;
  }

  idle(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}

/** `new TurnQueue()` makes the in-process queue; `TurnQueue` as a type stays the interface a leased queue implements. */
export const TurnQueue = LocalTurnQueue;
