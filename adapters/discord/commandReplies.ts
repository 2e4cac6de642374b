// Answers to slash commands: through the interaction's webhook where the turn runs here, else a channel message.
import { createHash } from 'node:crypto';
import type { Logger } from '../../src/ops/log.ts';
import type { IncomingMessage } from '../../src/platform/index.ts';
import { ANSWER_BELOW_TEXT, type InteractionOutlet } from './outlets.ts';

/**
 * What tells two queued messages of a chat apart without an id of their own: who sent what (the durable queue
 * hands the port the stored message, not the object the adapter queued).
 */
export function turnKey(message: IncomingMessage): string {
  const parts = [message.userId, message.text, message.skill?.id ?? '', message.skill?.args ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

interface Waiting {
  key: string;
  outlet: InteractionOutlet;
  timer: NodeJS.Timeout;
}

/**
 * The deferred replies of `/ask` and `/skill` used in a bot thread or a DM, waiting for their queued turns. Kept
 * in this process only (an interaction token is a credential with 15 minutes to live): when the turn runs here,
 * the port takes the reply and answers through it; when it runs elsewhere, or only after the token's life, the
 * reply is told that the answer comes as a separate message, and the turn answers in the channel.
 */
export class CommandReplies {
  readonly #byChat = new Map<string, Waiting[]>();

  constructor(private readonly log: Logger) {}

  /** Keeps a reply for its message's turn until the token's end; returns what forgets it again (queueing failed). */
  add(message: IncomingMessage, outlet: InteractionOutlet): () => void {
    const waiting: Waiting = {
      key: turnKey(message),
      outlet,
      timer: setTimeout(() => {
        if (this.#remove(message.chatId, waiting)) this.#settle(outlet, ANSWER_BELOW_TEXT);
      }, Math.max(0, outlet.tokenDeadline - Date.now())),
    };
    waiting.timer.unref();
    const list = this.#byChat.get(message.chatId) ?? [];
    list.push(waiting);
    this.#byChat.set(message.chatId, list);
    return () => {
      if (this.#remove(message.chatId, waiting)) outlet.close();
    };
  }

  /** The reply waiting for this message's turn, oldest first among identical ones; now the turn's to answer. */
  take(message: IncomingMessage): InteractionOutlet | undefined {
    return this.#take(message.chatId, turnKey(message))?.outlet;
  }

  /** Another instance runs this turn: its reply here will never carry the answer. */
  ranElsewhere(chatId: string, key: string): void {
    const waiting = this.#take(chatId, key);
    if (waiting) this.#settle(waiting.outlet, ANSWER_BELOW_TEXT);
  }

  /** This instance stops: every waiting reply says that the answer comes later, as a separate message. */
  async interruptAll(): Promise<void> {
    const all = [...this.#byChat.values()].flat();
    this.#byChat.clear();
    await Promise.all(
      all.map(async (waiting) => {
        clearTimeout(waiting.timer);
        await waiting.outlet.interrupted().catch((error: unknown) => this.log.debug({ err: error }, 'updating a waiting command reply failed'));
        waiting.outlet.close();
      }),
    );
  }

  #take(chatId: string, key: string): Waiting | undefined {
    const waiting = this.#byChat.get(chatId)?.find((candidate) => candidate.key === key);
    return waiting && this.#remove(chatId, waiting) ? waiting : undefined;
  }

  #remove(chatId: string, waiting: Waiting): boolean {
    const list = this.#byChat.get(chatId);
    const index = list?.indexOf(waiting) ?? -1;
    if (!list || index === -1) return false;
    clearTimeout(waiting.timer);
    list.splice(index, 1);
    if (list.length === 0) this.#byChat.delete(chatId);
    return true;
  }

  #settle(outlet: InteractionOutlet, text: string): void {
    outlet
      .note(text)
      .catch((error: unknown) => this.log.debug({ err: error }, 'updating a command reply failed'))
      .finally(() => outlet.close());
  }
}
