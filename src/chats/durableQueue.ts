import type { Logger } from '../ops/log.ts';
import type { IncomingMessage } from '../platform/port.ts';
import type { AcceptOutcome, Store } from '../store/types.ts';
import { acquireChatLease, DEFAULT_LEASE, type HeldLease, type LeaseHolders, type LeaseOptions } from './chatLease.ts';
import { Inbox, type InboxItem } from './inbox.ts';

/** Runs one waiting message's turn. Resolves when it is answered (or answered with an apology): never rejects. */
export type ItemRunner = (item: InboxItem) => Promise<'done' | 'retry'>;

export interface DurableQueueOptions {
  lease?: LeaseOptions;
  /**
   * How often to look for chats nobody is working on (a dead instance's, one handed over at shutdown, messages
   * left by a restart). One read of the set of waiting chats per sweep, whatever the store holds.
   */
  sweepMs?: number;
  /**
   * Which chats this instance can answer (a platform it runs, a terminal session it shows); the others are left
   * to the instances that can, so none takes a lease only to give it back. Default: every chat.
   */
  answers?: (chatId: string) => boolean;
}

/** A message nobody answered for a week (no instance ran its platform) is dropped by the next that can, not kept. */
const GIVE_UP_MS = 7 * 24 * 60 * 60 * 1000;
/** A dead instance's chats are taken within half a second of it counting as gone (instanceLiveness.ts). */
const DEFAULT_SWEEP_MS = 500;

export interface QueueStopOptions {
  /** True once waiting longer for the running turns is pointless (each waits on a person). */
  settled?: () => boolean;
  /** Ends the turns still running once their chats are let go. */
  leave?: () => void | Promise<void>;
  /** How long those turns get to end (default 3 s). */
  leaveMs?: number;
}

/**
 * One turn at a time per chat, across every instance sharing the store, and no message lost: a message is
 * accepted into the chat's inbox, then whoever holds the chat's lease answers the inbox in order. A dead
 * instance's chats are taken over by the next sweep of a live one as soon as its liveness record is gone.
 */
export class DurableQueue {
  private readonly inbox: Inbox;
  private readonly lease: LeaseOptions;
  private readonly draining = new Map<string, Promise<void>>();
  private readonly leases = new Set<HeldLease>();
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  private stopping = false;
  private handedOver = false;

  constructor(
    private readonly store: Store,
    private readonly run: ItemRunner,
    private readonly holders: LeaseHolders,
    private readonly logger: Logger,
    private readonly options: DurableQueueOptions = {},
  ) {
    this.inbox = new Inbox(store);
    this.lease = options.lease ?? DEFAULT_LEASE;
  }

  /** Starts the sweeper, and at once picks up whatever waits from before (a restart). */
  start(): void {
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepMs ?? DEFAULT_SWEEP_MS);
    this.sweeper.unref();
    void this.sweep();
  }

  /**
   * Accepts one delivery in one atomic store step (see Inbox.accept); a queued message's turn runs here or on
   * another instance. `onQueued` learns the queued item (its id is the turn id) before it can run here.
   * Throws when the store fails, having written nothing.
   */
  async accept(message: IncomingMessage | undefined, deliveryKeys: string[], onQueued?: (item: InboxItem) => void): Promise<AcceptOutcome> {
    const { outcome, item } = await this.inbox.accept(message, deliveryKeys);
    if (item) {
      // Before the kick: whoever waits for the turn here must be in place before it can run here.
      onQueued?.(item);
      this.kick(item.message.chatId);
    }
    return outcome;
  }

  /**
   * True once stop() let running chats go: turns still finishing here must neither answer nor remove their
   * messages, which another instance now answers.
   */
  get handedOverChats(): boolean {
    return this.handedOver;
  }

  /** Chats this instance is working on now (holding their leases, or trying to take them). */
  get active(): number {
    return this.draining.size;
  }

  /** Chats whose lease this instance holds now. */
  get leased(): number {
    return this.leases.size;
  }

  /** The backlog over every instance: messages waiting, and the arrival of the oldest (undefined: none). */
  async backlog(): Promise<{ waiting: number; oldestAt: number | undefined }> {
    const [waiting, chats] = await Promise.all([this.inbox.size(), this.inbox.chatsWaiting()]);
    const oldestAt = chats.length === 0 ? undefined : Math.min(...chats.map((chat) => chat.oldestAt));
    return { waiting, oldestAt };
  }

  /**
   * Stop taking turns: no new chat is started here; running turns get until the deadline to finish (or until
   * `options.settled` says every one left waits on something that cannot come now, such as a person's answer),
   * then their leases are let go so another instance, or this one after its restart, takes them over (their
   * messages stay in the inbox). `options.leave` then ends those turns (their answers are not posted), and they
   * get `options.leaveMs` to wind down, so none writes to a store that is about to close.
   */
  async stop(deadlineMs: number, options: QueueStopOptions = {}): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    await this.waitForTurns(deadlineMs, options.settled);
    // Turns still running past the deadline: let their chats go now rather than when the leases expire.
    this.leftAtStop = this.leases.size;
    this.handedOver = this.leftAtStop > 0;
    await Promise.allSettled([...this.leases].map((lease) => lease.release()));
    if (this.handedOver && options.leave) {
      await options.leave();
      await this.waitForTurns(options.leaveMs ?? 3_000);
    }
  }

  /** Turns still running when stop() let their chats go (their messages stay queued). */
  leftAtStop = 0;

  /** Chats whose turn is running here now. */
  get runningChats(): string[] {
    return [...this.draining.keys()];
  }

  private async waitForTurns(ms: number, settled?: () => boolean): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(this.draining.values()),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        if (settled) poll = setInterval(() => settled() && resolve(), 50);
      }),
    ]);
    clearTimeout(timer);
    clearInterval(poll);
  }

  private kick(chatId: string): void {
    if (this.stopping || this.draining.has(chatId) || this.options.answers?.(chatId) === false) return;
    const work = this.drain(chatId)
      .catch((error: unknown) => this.logger.error({ err: error, chatId }, 'chat queue failed; the sweeper will retry'))
      .finally(() => this.draining.delete(chatId));
    this.draining.set(chatId, work);
  }

  private async drain(chatId: string): Promise<void> {
    for (;;) {
      const lease = await acquireChatLease(this.store, chatId, this.lease, this.holders, this.logger);
      // Someone alive holds it: they re-check the inbox after letting it go, so nothing is stranded.
      if (!lease) return;
      this.leases.add(lease);
      try {
        for (;;) {
          if (this.stopping || lease.lost) return;
          const { item, more } = await this.inbox.nextAndMore(chatId);
          if (!item) break;
          if (item.receivedAt < Date.now() - GIVE_UP_MS) {
            this.logger.warn({ chatId, turnId: item.id }, 'a message nobody could answer for a week dropped');
          } else {
            const outcome = await this.run(item);
            if (lease.lost || this.handedOver) return;
            if (outcome === 'retry') return;
          }
          await this.inbox.remove(item);
          // Nothing waited behind it when it was read: what arrived since is found by the look after the release.
          if (!more) break;
        }
      } finally {
        this.leases.delete(lease);
        await lease.release();
      }
      // A message may have arrived between the last look and the release, while its sender saw the lease held.
      if (this.stopping || (await this.inbox.next(chatId)) === undefined) return;
    }
  }

  private async sweep(): Promise<void> {
    if (this.stopping || this.sweeping) return;
    this.sweeping = true;
    try {
      for (const { chatId } of await this.inbox.chatsWaiting()) this.kick(chatId);
    } catch (error) {
      this.logger.warn({ err: error }, 'inbox sweep failed');
    } finally {
      this.sweeping = false;
    }
  }
}
