import { setTimeout as delay } from 'node:timers/promises';
import type { Engine } from '../../src/agent/engine.ts';
import type { Logger } from '../../src/log.ts';
import type { IncomingMessage } from '../../src/platform.ts';
import type { DiscordApi } from './discordApi.ts';
import type { Outlet } from './outlets.ts';
import { createTurnSink, type DiscordTurnSink } from './turnSink.ts';

/** Hands messages to the engine without holding up the gateway, and knows which turns are still running. */
export class TurnRunner {
  readonly #running = new Set<Promise<void>>();
  readonly #sinks = new Set<DiscordTurnSink>();

  constructor(
    private readonly engine: Engine,
    private readonly api: DiscordApi,
    private readonly log: Logger,
  ) {}

  start(message: IncomingMessage, outlet: Outlet): void {
    const sink = createTurnSink(outlet, this.api, this.log);
    this.#sinks.add(sink);
    const log = this.log.child({ chatId: message.chatId });
    const run = this.engine
      .handleMessage(message, sink)
      .then(
        (outcome) => log.debug({ turnId: outcome.turnId, status: outcome.status }, 'turn delivered'),
        (error: unknown) => log.error({ err: error }, 'the turn failed or its answer could not be delivered'),
      )
      .finally(() => {
        sink.close();
        outlet.close?.();
        this.#sinks.delete(sink);
        this.#running.delete(run);
      });
    this.#running.add(run);
  }

  /** Waits up to `graceMs` for running turns (one waiting on an approval may take longer), then stops typing. */
  async drain(graceMs: number): Promise<void> {
    if (this.#running.size > 0) {
      const timeout = new AbortController();
      await Promise.race([
        Promise.allSettled([...this.#running]),
        delay(graceMs, undefined, { signal: timeout.signal }).catch(() => undefined),
      ]);
      timeout.abort();
    }
    for (const sink of this.#sinks) sink.close();
  }
}
