import type { Logger } from '../log.ts';
import type { IncomingMessage } from '../platform.ts';
import type { Store } from '../store/types.ts';
import { acquireChatLease, DEFAULT_LEASE, type HeldLease, type LeaseOptions } from './chatLease.ts';
import { Inbox, type InboxItem } from './inbox.ts';

/** Runs one waiting message's turn. Resolves when it is answered (or answered with an apology): never rejects. */
export type ItemRunner = (item: InboxItem) => Promise<'done' | 'retry'>;

export interface DurableQueueOptions {
  lease?: LeaseOptions;
  /** How often to look for chats nobody is working on (a dead instance's, or messages left by a restart). */
  sweepMs?: number;
}

/**
 * One turn at a time per chat, across every instance sharing the store, and no message lost: a message is
 * written to the chat's inbox, then whoever holds the chat's lease answers the inbox in order. A dead
 * instance's lease expires and the sweeper of a live one takes the chat over, unanswered messages included.
 */
export class DurableQueue {
  private readonly inbox: Inbox;
  private readonly lease: LeaseOptions;
  private readonly draining = new Map<string, Promise<void>>();
  private readonly leases = new Set<HeldLease>();
  private sweeper: NodeJS.Timeout | undefined;
  private stopping = false;
  private handedOver = false;

  constructor(
    private readonly store: Store,
    private readonly run: ItemRunner,
    private readonly logger: Logger,
    private readonly options: DurableQueueOptions = {},
  ) {
    this.inbox = new Inbox(store);
    this.lease = options.lease ?? DEFAULT_LEASE;
  }

  /** Starts the sweeper, and at once picks up whatever waits from before (a restart). */
  start(): void {
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepMs ?? 5_000);
    this.sweeper.unref();
    void this.sweep();
  }

  /** Resolves once the message is durably queued; its turn runs here or on another instance. */
  async submit(message: IncomingMessage): Promise<InboxItem> {
    const item = await this.inbox.put(message);
    this.kick(message.chatId);
    return item;
  }

  /**
   * True once stop() let running chats go: turns still finishing here must neither answer nor remove their
   * messages, which another instance now answers.
   */
  get handedOverChats(): boolean {
    return this.handedOver;
  }

  /** Chats this instance is working on now. */
  get active(): number {
    return this.draining.size;
  }

  /**
   * Stop taking turns: no new chat is started here; running turns get until the deadline to finish, then their
   * leases are let go so another instance takes over (their messages stay in the inbox).
   */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(this.draining.values()),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    // Turns still running past the deadline: let their chats go now rather than when the leases expire.
    this.handedOver = this.leases.size > 0;
    await Promise.allSettled([...this.leases].map((lease) => lease.release()));
  }

  private kick(chatId: string): void {
    if (this.stopping || this.draining.has(chatId)) return;
    const work = this.drain(chatId)
      .catch((error: unknown) => this.logger.error({ err: error, chatId }, 'chat queue failed; the sweeper will retry'))
      .finally(() => this.draining.delete(chatId));
    this.draining.set(chatId, work);
  }

  private async drain(chatId: string): Promise<void> {
    for (;;) {
      const lease = await acquireChatLease(this.store, chatId, this.lease, this.logger);
      // Someone else holds it: they re-check the inbox after letting it go, so nothing is stranded.
      if (!lease) return;
      this.leases.add(lease);
      try {
        for (;;) {
          if (this.stopping || lease.lost) return;
          const [item] = await this.inbox.pending(chatId);
          if (!item) break;
          const outcome = await this.run(item);
          if (lease.lost || this.handedOver) return;
          if (outcome === 'retry') return;
          await this.inbox.remove(item);
        }
      } finally {
        this.leases.delete(lease);
        await lease.release();
      }
      // A message may have arrived between the last look and the release, while its sender saw the lease held.
      if (this.stopping || (await this.inbox.pending(chatId)).length === 0) return;
    }
  }

  private async sweep(): Promise<void> {
    if (this.stopping) return;
    try {
      for (const chatId of await this.inbox.chatsWaiting()) this.kick(chatId);
    } catch (error) {
      this.logger.warn({ err: error }, 'inbox sweep failed');
    }
  }
}
