// Stopping a running turn: from any instance, by the person who asked or one of the world's approvers.
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';

export const STOP_CHANNEL = 'turn-stops';

/** What a person who may not stop the turn is told, privately, on every platform. */
export const STOP_NOT_ALLOWED_TEXT = "Only the person who asked, or one of this channel's approvers, can stop this.";

/** A message that asks to stop: just "stop" (any case, a trailing "!" or "." allowed), the mention already removed. */
export function isStopText(text: string): boolean {
  return /^stop[.!]*$/i.test(text.trim());
}
const RUNNING_PREFIX = 'running/';
const STOP_PREFIX = 'stop/';
/** A running-turn record outlives any turn; a dead instance's record lapses on its own. */
const RUNNING_KEEP_MS = 6 * 60 * 60 * 1000;
/** A stop request is a record too, so a turn whose instance missed the (at most once) message still sees it. */
const STOP_KEEP_MS = 60 * 60 * 1000;
const DEFAULT_POLL_MS = 2_000;

/** The turn a chat is running, as every instance can see it in the store. */
export interface RunningTurn {
  turnId: string;
  chatId: string;
  worldId: string;
  /** Whose message started the turn: they may stop it, as may the world's approvers. */
  requesterId: string;
}

export interface StopRequest {
  worldId: string;
  chatId: string;
  userId: string;
  /** A Stop button names its turn: a click on an old turn's button stops nothing newer. */
  turnId?: string;
}

export type StopResult =
  | { kind: 'stopping'; turn: RunningTurn }
  | { kind: 'not_running' }
  | { kind: 'not_allowed'; turn: RunningTurn };

/** One running turn on this instance. */
export interface TurnRun {
  readonly signal: AbortSignal;
  /** Who stopped the turn, once someone did. */
  readonly stoppedBy: string | undefined;
  /** The turn is over: forget it here and in the store (again: nothing). */
  end(): Promise<void>;
}

export interface TurnStopsOptions {
  /** The world's approvers (configured), who may stop any turn in it. */
  approversFor: (worldId: string) => readonly string[];
  logger: Logger;
  /** Called on the stopping instance once a stop is sent (the runtime answers the turn's open approval `no`). */
  onStop?: (turn: RunningTurn, by: string) => Promise<void>;
  /** How often a running turn re-reads its stop record (pub/sub is at most once). */
  pollMs?: number;
}

const stopMessage = (turnId: string, by: string) => JSON.stringify({ turnId, by });

function parseStopMessage(message: string): { turnId: string; by: string } | undefined {
  try {
    const value: unknown = JSON.parse(message);
    const { turnId, by } = (value ?? {}) as { turnId?: unknown; by?: unknown };
    return typeof turnId === 'string' && typeof by === 'string' ? { turnId, by } : undefined;
  } catch {
    return undefined;
  }
}

interface LocalRun {
  turn: RunningTurn;
  controller: AbortController;
  stoppedBy?: string;
  poll: NodeJS.Timeout;
}

/**
 * The turns running here, and the way to stop any turn anywhere. A stop is written to the store (the record the
 * running turn re-reads) and published (so it acts at once); the instance running the turn aborts its signal,
 * which ends the model stream and any skill process of the turn.
 */
export class TurnStops {
  readonly #runs = new Map<string, LocalRun>();
  #unsubscribe: Promise<() => Promise<void>> | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: TurnStopsOptions,
  ) {}

  /** Listens for stops published by any instance. */
  async start(): Promise<void> {
    this.#unsubscribe ??= this.store.subscribe(STOP_CHANNEL, (message) => {
      const parsed = parseStopMessage(message);
      if (parsed) this.#abort(parsed.turnId, parsed.by);
    });
    await this.#unsubscribe;
  }

  async close(): Promise<void> {
    const unsubscribe = await this.#unsubscribe?.catch(() => undefined);
    await unsubscribe?.().catch((error: unknown) => this.options.logger.warn({ err: error }, 'unsubscribing from turn stops failed'));
    for (const run of this.#runs.values()) clearInterval(run.poll);
  }

  /** Registers a turn starting here; its signal aborts when someone stops it. */
  async begin(turn: RunningTurn): Promise<TurnRun> {
    const controller = new AbortController();
    const poll = setInterval(() => void this.#checkStored(turn.turnId), this.options.pollMs ?? DEFAULT_POLL_MS);
    poll.unref();
    const run: LocalRun = { turn, controller, poll };
    this.#runs.set(turn.turnId, run);
    // `status` is the turn's id: the end releases the record only if it is still this turn's (one atomic step).
    await this.store.set('chats', `${RUNNING_PREFIX}${turn.chatId}`, { ...turn, status: turn.turnId }, RUNNING_KEEP_MS);
    // A stop sent before this turn registered (a re-run of a stopped turn) still counts.
    await this.#checkStored(turn.turnId);
    return {
      signal: controller.signal,
      get stoppedBy() {
        return run.stoppedBy;
      },
      end: async () => {
        // Once: the turn ends itself before its answer shows, and its runner's `finally` ends it again.
        if (!this.#runs.has(turn.turnId) || this.#runs.get(turn.turnId) !== run) return;
        clearInterval(poll);
        this.#runs.delete(turn.turnId);
        await this.store.release('chats', `${RUNNING_PREFIX}${turn.chatId}`, turn.turnId);
      },
    };
  }

  /** The turn a chat is running now, on any instance. */
  async running(chatId: string): Promise<RunningTurn | undefined> {
    for (const run of this.#runs.values()) if (run.turn.chatId === chatId) return run.turn;
    return this.store.get<RunningTurn>('chats', `${RUNNING_PREFIX}${chatId}`);
  }

  /** Whether `userId` may stop `turn`: the requester, or one of its world's approvers. */
  mayStop(turn: RunningTurn, userId: string): boolean {
    if (turn.requesterId === userId) return true;
    try {
      return this.options.approversFor(turn.worldId).includes(userId);
    } catch (error) {
      this.options.logger.error({ err: error, worldId: turn.worldId }, 'reading the approvers failed');
      return false;
    }
  }

  /** Stops the chat's running turn (the named one only, when a turn id is given), wherever it runs. */
  async request(request: StopRequest): Promise<StopResult> {
    const turn = await this.running(request.chatId);
    if (!turn || turn.worldId !== request.worldId || (request.turnId !== undefined && request.turnId !== turn.turnId)) return { kind: 'not_running' };
    if (!this.mayStop(turn, request.userId)) return { kind: 'not_allowed', turn };
    await this.store.set('chats', `${STOP_PREFIX}${turn.turnId}`, { by: request.userId }, STOP_KEEP_MS);
    this.#abort(turn.turnId, request.userId);
    await this.store.publish(STOP_CHANNEL, stopMessage(turn.turnId, request.userId));
    await this.options.onStop?.(turn, request.userId).catch((error: unknown) => this.options.logger.warn({ err: error, turnId: turn.turnId }, 'closing the stopped turn\'s approval failed'));
    this.options.logger.info({ chatId: turn.chatId, turnId: turn.turnId, by: request.userId }, 'turn stop requested');
    return { kind: 'stopping', turn };
  }

  /**
   * Ends every turn running here (a shutdown): `by` is a system name, so nothing is said in the chat; the
   * turns' messages stay queued and are answered again by whoever takes their chats.
   */
  abortAll(by: string): void {
    for (const turnId of [...this.#runs.keys()]) this.#abort(turnId, by);
  }

  async #checkStored(turnId: string): Promise<void> {
    if (!this.#runs.has(turnId)) return;
    try {
      const stored = await this.store.get<{ by?: unknown }>('chats', `${STOP_PREFIX}${turnId}`);
      if (typeof stored?.by === 'string') this.#abort(turnId, stored.by);
    } catch (error) {
      this.options.logger.warn({ err: error, turnId }, 'reading the stop record failed');
    }
  }

  #abort(turnId: string, by: string): void {
    const run = this.#runs.get(turnId);
    if (!run || run.controller.signal.aborted) return;
    run.stoppedBy = by;
    run.controller.abort(new TurnStoppedError(by));
  }
}

/** The reason a stopped turn's signal carries. */
export class TurnStoppedError extends Error {
  override name = 'TurnStoppedError';
  constructor(readonly by: string) {
    super(`the turn was stopped by ${by}`);
  }
}
