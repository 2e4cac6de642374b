import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from '../platform/port.ts';
import type { AcceptOutcome, Store } from '../store/types.ts';

/** A user message waiting for its turn, kept in the store until the turn has answered it. */
export interface InboxItem {
  /** Sortable by arrival: time, then a random tail. Also the turn id of the turn that answers it. */
  id: string;
  message: IncomingMessage;
  receivedAt: number;
}

/** A delivery's keys are remembered this long (Slack retries for minutes and replays after a reconnect). */
export const DELIVERY_KEYS_TTL_MS = 2 * 60 * 60 * 1000;

/**
 * The durable per-chat queue: a message is accepted (its delivery keys claimed and the message queued, in one
 * atomic store step) before anyone works on it, and removed only once answered, so a restart or a killed
 * instance loses none of them. Every read is of one chat's queue or of the set of waiting chats: what it costs
 * does not depend on what else the store holds.
 */
export class Inbox {
  private last = 0;
  private sequence = 0;

  constructor(private readonly store: Store) {}

  /** Time, then a counter (several messages in one millisecond keep their order), then a random tail. */
  private nextId(now: number): string {
    this.sequence = now === this.last ? this.sequence + 1 : 0;
    this.last = now;
    return `${now.toString(36).padStart(9, '0')}-${this.sequence.toString(36).padStart(3, '0')}-${randomUUID().slice(0, 8)}`;
  }

  /**
   * Queues `message` unless one of `deliveryKeys` was accepted before. Without a message only the keys are
   * claimed (a delivery that needs no turn, handled once). Throws a StoreError when the store fails: then
   * nothing at all was written, and a redelivery is accepted afresh.
   */
  async accept(
    message: IncomingMessage | undefined,
    deliveryKeys: string[],
    now = Date.now(),
  ): Promise<{ outcome: AcceptOutcome; item?: InboxItem }> {
    if (message === undefined) return { outcome: await this.store.accept(deliveryKeys, DELIVERY_KEYS_TTL_MS) };
    const item: InboxItem = { id: this.nextId(now), message, receivedAt: now };
    const outcome = await this.store.accept(deliveryKeys, DELIVERY_KEYS_TTL_MS, {
      chatId: message.chatId,
      item: { id: item.id, at: now, value: item },
    });
    return outcome === 'queued' ? { outcome, item } : { outcome };
  }

  /** The chat's oldest waiting message. */
  async next(chatId: string): Promise<InboxItem | undefined> {
    const [entry] = await this.store.inboxHead<InboxItem>(chatId, 1);
    return entry?.value;
  }

  /** The chat's oldest waiting message, and whether another one waited behind it (in the same read). */
  async nextAndMore(chatId: string): Promise<{ item?: InboxItem; more: boolean }> {
    const [first, second] = await this.store.inboxHead<InboxItem>(chatId, 2);
    return { ...(first ? { item: first.value } : {}), more: second !== undefined };
  }

  async remove(item: InboxItem): Promise<void> {
    await this.store.inboxRemove(item.message.chatId, item.id);
  }

  /** Chats that have messages waiting, with their oldest message's arrival (the sweeper, the gauges). */
  chatsWaiting(): Promise<Array<{ chatId: string; oldestAt: number }>> {
    return this.store.inboxChats();
  }

  /** Messages waiting, over all chats. */
  size(): Promise<number> {
    return this.store.inboxSize();
  }
}
