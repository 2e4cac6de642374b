import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from '../platform.ts';
import type { Store } from '../store/types.ts';

/** A user message waiting for its turn, kept in the store until the turn has answered it. */
export interface InboxItem {
  /** Sortable by arrival: time, then a random tail. Also the turn id of the turn that answers it. */
  id: string;
  message: IncomingMessage;
  receivedAt: number;
}

const PREFIX = 'inbox/';
/** Unanswered messages are kept this long at most (a week): long enough for any outage, bounded. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;

const itemKey = (chatId: string, id: string) => `${PREFIX}${chatId}/${id}`;

/**
 * The durable per-chat queue: messages are written here before anyone works on them and deleted only once
 * answered, so a restart or a killed instance loses none of them.
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

  async put(message: IncomingMessage, now = Date.now()): Promise<InboxItem> {
    const id = this.nextId(now);
    const item: InboxItem = { id, message, receivedAt: now };
    await this.store.set('chats', itemKey(message.chatId, id), item, KEEP_MS);
    return item;
  }

  /** The chat's waiting messages, oldest first. */
  async pending(chatId: string): Promise<InboxItem[]> {
    const rows = await this.store.list<InboxItem>('chats', `${PREFIX}${chatId}/`);
    return rows.map((row) => row.value);
  }

  async remove(item: InboxItem): Promise<void> {
    await this.store.delete('chats', itemKey(item.message.chatId, item.id));
  }

  /** Chats that have messages waiting (for the sweeper that picks up a dead instance's work). */
  async chatsWaiting(): Promise<string[]> {
    const rows = await this.store.list<InboxItem>('chats', PREFIX);
    return [...new Set(rows.map((row) => row.value.message.chatId))];
  }
}
