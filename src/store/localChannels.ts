import type { Logger } from '../ops/log.ts';
import { deliverMessage } from './deliverMessage.ts';

/**
 * Publish/subscribe inside one store object (memory and sqlite). sqlite has no notification mechanism a
 * second process could hear, so several processes (or store objects) on one file do not hear each other:
 * whoever relies on a message must also re-read the store now and then.
 */
export class LocalChannels {
  readonly #handlers = new Map<string, Set<(message: string) => void>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  publish(channel: string, message: string): void {
    const handlers = [...(this.#handlers.get(channel) ?? [])];
    if (handlers.length === 0) return;
    // Delivered on a later turn of the event loop, as over a network: a publisher never re-enters its own handler.
    setImmediate(() => {
      for (const handler of handlers) if (this.#isSubscribed(channel, handler)) deliverMessage(handler, message, channel, this.#logger);
    });
  }

  subscribe(channel: string, handler: (message: string) => void): () => Promise<void> {
    // A wrapper per call, so subscribing the same function twice gives two independent subscriptions.
    const subscription = (message: string): void => handler(message);
    const handlers = this.#handlers.get(channel) ?? new Set();
    handlers.add(subscription);
    this.#handlers.set(channel, handlers);
    return async () => {
      handlers.delete(subscription);
      if (handlers.size === 0 && this.#handlers.get(channel) === handlers) this.#handlers.delete(channel);
    };
  }

  clear(): void {
    this.#handlers.clear();
  }

  #isSubscribed(channel: string, handler: (message: string) => void): boolean {
    return this.#handlers.get(channel)?.has(handler) === true;
  }
}
