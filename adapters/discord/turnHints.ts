// "I am answering this message": told to the other instances, so a command reply waiting there stops "thinking".
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../../src/ops/log.ts';
import type { AdapterState } from '../../src/platform/index.ts';

export const TURN_HINT_CHANNEL = 'discord:turns';

const hintSchema = z.object({ from: z.string(), chatId: z.string(), key: z.string() });

/**
 * Turn starts announced on the store's pub/sub (Redis: every instance; sqlite and memory: this process only,
 * where a turn never runs apart from its own reply). At most once, like the store's pub/sub: a missed hint
 * leaves the reply until its token's end, when it is settled the same way.
 */
export class TurnHints {
  readonly #instance = randomUUID();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly store: AdapterState,
    private readonly log: Logger,
  ) {}

  async listen(onElsewhere: (chatId: string, key: string) => void): Promise<void> {
    this.#unsubscribe = await this.store.subscribe(TURN_HINT_CHANNEL, (raw) => {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        return;
      }
      const hint = hintSchema.safeParse(value);
      if (hint.success && hint.data.from !== this.#instance) onElsewhere(hint.data.chatId, hint.data.key);
    });
  }

  /** A turn of `chatId` runs here without a command reply of this instance: tell the others. */
  announce(chatId: string, key: string): void {
    this.store
      .publish(TURN_HINT_CHANNEL, JSON.stringify({ from: this.#instance, chatId, key }))
      .catch((error: unknown) => this.log.debug({ err: error, chatId }, 'announcing a turn failed'));
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}
