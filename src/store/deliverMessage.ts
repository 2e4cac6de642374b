import type { Logger } from '../ops/log.ts';

/**
 * Calls a subscriber's handler with one message. Whatever the handler does wrong (throws, or returns a
 * promise that rejects) is logged here: it must never reach the event loop, the Redis client or the publisher.
 */
export function deliverMessage(handler: (message: string) => void, message: string, channel: string, logger: Logger): void {
  const failed = (error: unknown): void => logger.error({ err: error, channel }, 'a store subscriber failed on a message');
  try {
    // A handler typed as returning void may still be an async function.
    const result: unknown = handler(message);
    if (result instanceof Promise) result.catch(failed);
  } catch (error) {
    failed(error);
  }
}
