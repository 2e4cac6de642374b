// Which threads the bot takes part in: a reply there continues the chat without a mention. Kept in the store
// ('chats' namespace) so it survives restarts and is shared by instances.
import type { AdapterState } from '../../src/platform/index.ts';

/** A thread quiet for this long needs a fresh @mention. */
export const THREAD_MEMORY_TTL_MS = 90 * 24 * 60 * 60 * 1000;

const key = (chatId: string): string => `slack-thread:${chatId}`;

export class ThreadMemory {
  constructor(
    private readonly store: AdapterState,
    private readonly ttlMs = THREAD_MEMORY_TTL_MS,
  ) {}

  async has(chatId: string): Promise<boolean> {
    return (await this.store.get(key(chatId))) !== undefined;
  }

  /** Called whenever the bot starts or continues a chat, which also renews the TTL. */
  async remember(chatId: string, startedBy: string): Promise<void> {
    await this.store.set(key(chatId), { startedBy, at: Date.now() }, this.ttlMs);
  }
}
