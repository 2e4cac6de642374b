// Where platform messages enter the core: accepted once, queued durably, answered by whichever instance holds the chat.
import type { Logger } from '../log.ts';
import type { IncomingMessage, PlatformPort, TurnPlatform, TurnSink } from '../platform.ts';
import type { Store } from '../store/types.ts';
import { DurableQueue, type DurableQueueOptions } from './durableQueue.ts';
import { parseChatId } from './ids.ts';
import type { InboxItem } from './inbox.ts';
import { claimReply, type ReplyClaimDeps } from './replyClaim.ts';

/**
 * What became of one platform delivery. `queued`: it is in the store (a message-less delivery: remembered as
 * handled), answer the platform 2xx. `duplicate`: an earlier delivery of it was accepted, answer 2xx and do
 * nothing. `refused`: the store did not answer and nothing was written: answer 5xx so the platform retries.
 */
export type AcceptResult = 'queued' | 'duplicate' | 'refused';

/**
 * Runs one turn of a queued message now (the dispatcher serialises a chat's turns under its lease); `platform`
 * lets it fetch the message's files and upload what scripts make.
 */
export type TurnRunner = (message: IncomingMessage, sink: TurnSink, turnId: string, platform: TurnPlatform) => Promise<unknown>;

export interface DispatcherDeps {
  store: Store;
  runTurn: TurnRunner;
  /** This instance, other instances' liveness, and how long to wait on a reply claimant that may be alive. */
  replies: ReplyClaimDeps;
  logger: Logger;
  /** Called with every accept's outcome and duration, by platform (`unknown` for a message-less one): metrics. */
  onAccepted?: (platform: string, outcome: AcceptResult, seconds: number) => void;
  queue?: DurableQueueOptions;
}

/**
 * The one entry for platform messages: `accept` dedupes and queues a delivery in one atomic store step, then
 * whichever instance holds the chat's lease answers it, through the sink that instance's platform port makes.
 */
export class Dispatcher {
  private readonly ports = new Map<string, PlatformPort>();
  private readonly queue: DurableQueue;

  constructor(private readonly deps: DispatcherDeps) {
    const { replies } = deps;
    this.queue = new DurableQueue(
      deps.store,
      (item) => this.answer(item),
      { instanceId: replies.instanceId, isAlive: (id) => replies.isAlive(id) },
      deps.logger,
      deps.queue,
    );
  }

  addPort(platform: string, port: PlatformPort): () => void {
    this.ports.set(platform, port);
    return () => this.ports.delete(platform);
  }

  start(): void {
    this.queue.start();
  }

  /**
   * Accepts one platform delivery: unless one of `deliveryKeys` (an event id, a channel + message ts…) was
   * accepted before, the message is queued, all in one atomic store step, so no crash can leave a delivery
   * half-accepted. Without a message only the keys are remembered (a delivery handled once without a turn).
   */
  async accept(message: IncomingMessage | undefined, deliveryKeys: string[]): Promise<AcceptResult> {
    const started = performance.now();
    let outcome: AcceptResult;
    try {
      outcome = await this.queue.accept(message, deliveryKeys);
    } catch (error) {
      this.deps.logger.warn({ err: error, chatId: message?.chatId, deliveryKeys }, 'delivery refused: the store did not take it');
      outcome = 'refused';
    }
    const platform = message === undefined ? 'unknown' : parseChatId(message.chatId).platform;
    this.deps.onAccepted?.(platform, outcome, (performance.now() - started) / 1000);
    return outcome;
  }

  /** Chats being worked on by this instance (holding their leases, or trying to take them). */
  get activeChats(): number {
    return this.queue.active;
  }

  /** Chats whose lease this instance holds now (a gauge). */
  get leasedChats(): number {
    return this.queue.leased;
  }

  /** Messages waiting over every instance, and the arrival of the oldest (gauges). */
  backlog(): Promise<{ waiting: number; oldestAt: number | undefined }> {
    return this.queue.backlog();
  }

  stop(deadlineMs: number): Promise<void> {
    return this.queue.stop(deadlineMs);
  }

  private async answer(item: InboxItem): Promise<'done' | 'retry'> {
    const platform = parseChatId(item.message.chatId).platform;
    const port = this.ports.get(platform);
    if (!port) {
      this.deps.logger.warn({ chatId: item.message.chatId, platform }, 'no adapter for this platform here; leaving the message to another instance');
      return 'retry';
    }
    await this.deps.runTurn(item.message, this.replyOnce(port.sinkFor(item.message, item.id), item), item.id, port);
    return 'done';
  }

  /** A re-run of a message (its first instance died after answering) must not post the answer again. */
  private replyOnce(sink: TurnSink, item: InboxItem): TurnSink {
    const { replies, logger } = this.deps;
    const queue = this.queue;
    // The answer, or the "stopped" note in its place, is posted once whatever re-runs the turn.
    const once = async (post: () => Promise<void>) => {
      if (queue.handedOverChats) {
        logger.info({ chatId: item.message.chatId, turnId: item.id }, 'handed over at shutdown; another instance answers');
        return;
      }
      const posted = await claimReply(replies, item.id);
      if (!posted) {
        logger.info({ chatId: item.message.chatId, turnId: item.id }, 'already answered before a restart; not posting again');
        return;
      }
      await post();
      await posted();
    };
    return {
      progress: (text) => sink.progress(text),
      partial: sink.partial?.bind(sink),
      retrying: sink.retrying?.bind(sink),
      ...(sink.upload ? { upload: sink.upload.bind(sink) } : {}),
      reply: (markdown) => once(() => sink.reply(markdown)),
      ...(sink.stopped ? { stopped: (userId: string) => once(() => sink.stopped?.(userId) ?? Promise.resolve()) } : {}),
    };
  }
}
