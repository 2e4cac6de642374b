import { DurableQueue, type DurableQueueOptions } from '../chats/durableQueue.ts';
import type { InboxItem } from '../chats/inbox.ts';
import { parseChatId } from '../chats/ids.ts';
import type { Logger } from '../log.ts';
import type { IncomingMessage, PlatformPort, TurnSink } from '../platform.ts';
import type { Store } from '../store/types.ts';
import type { Engine } from './engine.ts';
import { claimReply, type ReplyClaimDeps } from './replyClaim.ts';

/**
 * Where platform messages enter when nothing may be lost: each message is queued durably, then answered by
 * whichever instance holds its chat's lease, through the sink that instance's platform port makes.
 */
export class Dispatcher {
  private readonly ports = new Map<string, PlatformPort>();
  private readonly queue: DurableQueue;

  constructor(
    private readonly engine: Engine,
    store: Store,
    private readonly replies: ReplyClaimDeps,
    private readonly logger: Logger,
    options: DurableQueueOptions = {},
  ) {
    this.queue = new DurableQueue(store, (item) => this.answer(item), logger, options);
  }

  addPort(platform: string, port: PlatformPort): () => void {
    this.ports.set(platform, port);
    return () => this.ports.delete(platform);
  }

  start(): void {
    this.queue.start();
  }

  /** Resolves once the message is safely queued (an adapter may then acknowledge it to its platform). */
  async submit(message: IncomingMessage): Promise<void> {
    await this.queue.submit(message);
  }

  /** Chats being worked on by this instance. */
  get activeChats(): number {
    return this.queue.active;
  }

  stop(deadlineMs: number): Promise<void> {
    return this.queue.stop(deadlineMs);
  }

  private async answer(item: InboxItem): Promise<'done' | 'retry'> {
    const platform = parseChatId(item.message.chatId).platform;
    const port = this.ports.get(platform);
    if (!port) {
      this.logger.warn({ chatId: item.message.chatId, platform }, 'no adapter for this platform here; leaving the message to another instance');
      return 'retry';
    }
    await this.engine.runTurnNow(item.message, this.replyOnce(port.sinkFor(item.message, item.id), item), item.id);
    return 'done';
  }

  /** A re-run of a message (its first instance died after answering) must not post the answer again. */
  private replyOnce(sink: TurnSink, item: InboxItem): TurnSink {
    const replies = this.replies;
    const logger = this.logger;
    const queue = this.queue;
    return {
      progress: (text) => sink.progress(text),
      partial: sink.partial?.bind(sink),
      retrying: sink.retrying?.bind(sink),
      async reply(markdown) {
        if (queue.handedOverChats) {
          logger.info({ chatId: item.message.chatId, turnId: item.id }, 'handed over at shutdown; another instance answers');
          return;
        }
        const posted = await claimReply(replies, item.id);
        if (!posted) {
          logger.info({ chatId: item.message.chatId, turnId: item.id }, 'already answered before a restart; not posting again');
          return;
        }
        await sink.reply(markdown);
        await posted();
      },
    };
  }
}
