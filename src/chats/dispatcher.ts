// Where every message enters the core: accepted once, queued durably, answered by whichever instance holds the chat.
import type { Logger } from '../ops/log.ts';
import type { IncomingMessage, OutgoingFile, PlatformPort, TurnPlatform, TurnSink } from '../platform/port.ts';
import type { Store } from '../store/types.ts';
import { DurableQueue, type DurableQueueOptions, type QueueStopOptions } from './durableQueue.ts';
import { parseChatId } from './ids.ts';
import type { InboxItem } from './inbox.ts';
import { claimReply, type ReplyClaim, type ReplyClaimDeps } from './replyClaim.ts';
import { ReplyGate } from './replyGate.ts';
import { WaitedTurns } from './waitedTurns.ts';

/**
 * What became of one platform delivery. `queued`: it is in the store (a message-less delivery: remembered as
 * handled), answer the platform 2xx. `duplicate`: an earlier delivery of it was accepted, answer 2xx and do
 * nothing. `refused`: the store did not answer and nothing was written: answer 5xx so the platform retries.
 */
export type AcceptResult = 'queued' | 'duplicate' | 'refused';

/**
 * Runs one turn of a queued message now (the dispatcher serialises a chat's turns under its lease); `platform`
 * lets it fetch the message's files and read its context. Resolves with the turn's outcome, for `submit`.
 */
export type TurnRunner<Outcome> = (message: IncomingMessage, sink: TurnSink, turnId: string, platform: TurnPlatform) => Promise<Outcome>;

export interface DispatcherDeps<Outcome> {
  store: Store;
  runTurn: TurnRunner<Outcome>;
  /** This instance, other instances' liveness, and how long to wait on a reply claimant that may be alive. */
  replies: ReplyClaimDeps;
  logger: Logger;
  /** Called with every accept's outcome and duration, by platform (`unknown` for a message-less one): metrics. */
  onAccepted?: (platform: string, outcome: AcceptResult, seconds: number) => void;
  queue?: DurableQueueOptions;
}

/**
 * The one entry for messages, whatever their platform: `accept` dedupes and queues a delivery in one atomic store
 * step, then whichever instance holds the chat's lease answers it, through the sink that instance's platform port
 * makes. The terminal enters here too, with `submit`, and waits for its turn's outcome.
 */
export class Dispatcher<Outcome = unknown> {
  private readonly ports = new Map<string, PlatformPort>();
  private readonly queue: DurableQueue;
  private readonly waited = new WaitedTurns<Outcome>();
  /** Claims of the turns running here, released if this instance hands their chats over at shutdown. */
  private readonly running = new Set<Extract<ReplyClaim, { kind: 'mine' }>>();

  constructor(private readonly deps: DispatcherDeps<Outcome>) {
    const { replies } = deps;
    this.queue = new DurableQueue(
      deps.store,
      (item) => this.answer(item),
      { instanceId: replies.instanceId, isAlive: (id) => replies.isAlive(id) },
      deps.logger,
      { ...deps.queue, answers: (chatId) => this.portFor(chatId) !== undefined },
    );
  }

  /** Chats of `platform` are answered here through `port` (until the returned function removes it). */
  addPort(platform: string, port: PlatformPort): () => void {
    this.ports.set(platform, port);
    return () => {
      if (this.ports.get(platform) === port) this.ports.delete(platform);
    };
  }

  /** The port that answers `platform`'s chats on this instance (routines post their root messages through it). */
  port(platform: string): PlatformPort | undefined {
    return this.ports.get(platform);
  }

  start(): void {
    this.queue.start();
  }

  /**
   * Accepts one platform delivery: unless one of `deliveryKeys` (an event id, a channel + message ts…) was
   * accepted before, the message is queued, all in one atomic store step, so no crash can leave a delivery
   * half-accepted. Without a message only the keys are remembered (a delivery handled once without a turn).
   */
  async accept(message: IncomingMessage | undefined, deliveryKeys: string[], onQueued?: (item: InboxItem) => void): Promise<AcceptResult> {
    const started = performance.now();
    let outcome: AcceptResult;
    try {
      outcome = await this.queue.accept(message, deliveryKeys, onQueued);
    } catch (error) {
      this.deps.logger.warn({ err: error, chatId: message?.chatId, deliveryKeys }, 'delivery refused: the store did not take it');
      outcome = 'refused';
    }
    const platform = message === undefined ? 'unknown' : parseChatId(message.chatId).platform;
    this.deps.onAccepted?.(platform, outcome, (performance.now() - started) / 1000);
    return outcome;
  }

  /**
   * Queues a message that has no platform delivery to dedupe (a line typed in the terminal) and resolves with its
   * turn's outcome once this instance has run it; the answer itself goes to the port's sink like any other. Rejects
   * when the store did not take the message, or when this instance stops before running the turn.
   */
  async submit(message: IncomingMessage): Promise<Outcome> {
    let finished: Promise<Outcome> | undefined;
    // No delivery keys: nothing to dedupe, so the only other outcome is `refused`.
    await this.accept(message, [], (item) => (finished = this.waited.wait(item.id)));
    if (finished === undefined) throw new Error('the store did not take it; try again in a moment');
    return finished;
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

  /** Stops taking turns (see DurableQueue.stop). */
  async stop(deadlineMs: number, options: QueueStopOptions = {}): Promise<void> {
    await this.queue.stop(deadlineMs, options);
    // Turns handed over unanswered: whoever re-runs them may answer at once, without waiting for this one to die.
    if (this.queue.handedOverChats) await Promise.allSettled([...this.running].map((claim) => claim.release()));
    this.waited.abandon(new Error('skillbot stopped before this message was answered'));
  }

  /** Turns still running when stop() let their chats go (their messages stay queued). */
  get leftAtStop(): number {
    return this.queue.leftAtStop;
  }

  /** Chats whose turn is running on this instance now. */
  get runningChats(): string[] {
    return this.queue.runningChats;
  }

  /** The port that answers the chat on this instance, if any. */
  private portFor(chatId: string): PlatformPort | undefined {
    const port = this.ports.get(parseChatId(chatId).platform);
    return port?.answers?.(chatId) === false ? undefined : port;
  }

  private async answer(item: InboxItem): Promise<'done' | 'retry'> {
    const port = this.portFor(item.message.chatId);
    const log = this.deps.logger.child({ chatId: item.message.chatId, turnId: item.id });
    if (!port) {
      // The port went away after the chat was taken (a terminal session ended): whoever can answer it will.
      log.warn('nothing here answers this chat now; leaving the message to another instance');
      return 'retry';
    }
    // Taken before the turn shows anything: a re-run of an answered message shows nothing at all (no placeholder
    // put back to "Working on it…"), and the answer, or the apology when our own side fails, needs no store later.
    let claim: ReplyClaim;
    try {
      claim = await claimReply(this.deps.replies, item.id);
    } catch (error) {
      log.warn({ err: error }, 'taking the reply claim failed (the store?); the message waits for the next sweep');
      return 'retry';
    }
    if (claim.kind === 'busy') {
      log.info('a live instance is answering this message; leaving it to that one');
      return 'retry';
    }
    if (claim.kind === 'answered') {
      log.info('already answered before a restart; not running it again');
      this.waited.failed(item.id, new Error('this message was answered before a restart'));
      return 'done';
    }
    this.running.add(claim);
    const fate = { takenOver: false };
    try {
      const outcome = await this.deps.runTurn(item.message, this.replyOnce(port.sinkFor(item.message, item.id), claim, log, fate), item.id, port);
      this.waited.finished(item.id, outcome);
      // Taken over by another instance, which answers it and then removes it: this one must not remove it first
      // (were that one to die, the message would be lost).
      return fate.takenOver ? 'retry' : 'done';
    } catch (error) {
      // Nothing was answered (the sink could not be made): the next run may.
      await claim.release().catch(() => undefined);
      throw error;
    } finally {
      this.running.delete(claim);
    }
  }

  /**
   * The answer, or the "stopped" note in its place, is posted by the run holding the claim, and only while this
   * instance still holds the chat: a turn still finishing after its chat was handed over at shutdown posts nothing
   * (the instance that re-runs it answers). Just before posting, the claim is marked `posting` by compare-and-set:
   * a run whose message was taken over meanwhile (it outlived its lease, starved of CPU) posts nothing, so the
   * message is answered once. When the store does not answer then, it is posted all the same (the apology for a
   * store outage must reach the person; nobody else can take the message over without the store either).
   * Marking it posted may fail with the store: it was posted all the same.
   */
  private replyOnce(sink: TurnSink, claim: Extract<ReplyClaim, { kind: 'mine' }>, log: Logger, fate: { takenOver: boolean }): TurnSink {
    const queue = this.queue;
    const once = async (post: () => Promise<void>) => {
      if (queue.handedOverChats) {
        // Said once for all such turns at shutdown (src/app.ts), where it is known whether others run.
        log.debug('not posting: this instance stopped; the message stays queued');
        return;
      }
      const ours = !gate.lost && await claim.post().catch((error: unknown) => {
        log.warn({ err: error }, 'marking the answer as being posted failed (the store?); posting it all the same');
        return true;
      });
      if (!ours) {
        fate.takenOver = true;
        log.warn('not posting: another instance took this message over while its turn ran here (this chat\'s lease was lost)');
        return;
      }
      await post();
      await claim.done().catch((error: unknown) => log.warn({ err: error }, 'marking the answer posted failed; it was posted'));
    };
    // What shows before the answer is held back too once the message is another run's (replyGate.ts).
    const gate = new ReplyGate(claim.holds);
    const upload = sink.upload?.bind(sink);
    return {
      progress: (text) => gate.show(() => void Promise.resolve(sink.progress(text)).catch((error: unknown) => log.warn({ err: error }, 'showing progress failed'))),
      ...(sink.partial ? { partial: (delta: string) => gate.show(() => sink.partial?.(delta)) } : {}),
      ...(sink.retrying ? { retrying: (reason: string) => gate.show(() => sink.retrying?.(reason)) } : {}),
      ...(upload ? { upload: async (file: OutgoingFile) => ((await gate.confirm()) ? upload(file) : undefined) } : {}),
      reply: (markdown) => once(() => sink.reply(markdown)),
      ...(sink.stopped ? { stopped: (userId: string) => once(() => sink.stopped?.(userId) ?? Promise.resolve()) } : {}),
    };
  }
}
