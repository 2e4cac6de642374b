// The approval runtime: puts a question to people in a world and resolves it exactly once, across instances.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { silentLogger, type Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { createLocalApprovalBus } from './approvalBus.ts';
import { decisionFields, isOption, pendingFields, resolvedRecord, runStartedKey, SYSTEM_DECIDERS } from './approvalRecord.ts';
import { ApprovalResolver } from './approvalResolver.ts';
import { ApprovalResume, askedAgain, RUN_STARTED } from './approvalResume.ts';
import { mayAnswer, tellNotAllowed } from './answerRights.ts';
import { RUNTIME_DEFAULTS, type ApprovalEvents, type ApprovalRuntimeOptions } from './runtimeOptions.ts';
import { ApprovalWaiters } from './approvalWaiters.ts';
import { type Asker, askPeople } from './approvalAsk.ts';
import { createRecordSealer, type RecordSealer } from './recordSeal.ts';
import { InstanceLiveness, newInstanceId } from '../chats/instanceLiveness.ts';
import { findStaleApprovals } from './staleApprovals.ts';
import type { ApprovalPresenter, ApprovalRecord, ApprovalRequestInput, ApprovalResponseInput, ResponseResult } from './types.ts';

export { SYSTEM_DECIDER_PREFIX, SYSTEM_DECIDERS } from './approvalRecord.ts';
export { NOT_ALLOWED_TEXT } from './answerRights.ts';
export type { ApprovalEvents, ApprovalRuntimeOptions } from './runtimeOptions.ts';

export class ApprovalRuntime extends EventEmitter<ApprovalEvents> {
  /** How long this instance's liveness outlives its last heartbeat (others treat it as gone after that). */
  get instanceTtlMs(): number {
    return this.#instanceTtlMs;
  }

  readonly instanceId: string;
  readonly #store: Store;
  readonly #approversFor: (worldId: string) => string[];
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #keepMs: number;
  readonly #sweepIntervalMs: number;
  readonly #instanceTtlMs: number;
  readonly #liveness: InstanceLiveness;
  readonly #subscription: Promise<() => Promise<void>>;
  readonly #waiters: ApprovalWaiters;
  readonly #resolver: ApprovalResolver;
  readonly #resume: ApprovalResume;
  readonly #sealer: RecordSealer;
  readonly #asker: Asker;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #closed = false;

  constructor(options: ApprovalRuntimeOptions) {
    super();
    this.#store = options.store;
    this.#sealer = options.sealer ?? createRecordSealer(randomBytes(32));
    this.#approversFor = options.approversFor;
    this.#logger = options.logger ?? silentLogger();
    this.#now = options.now ?? Date.now;
    const bus = options.bus ?? createLocalApprovalBus();
    this.#keepMs = options.keepMs ?? RUNTIME_DEFAULTS.keepMs;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? RUNTIME_DEFAULTS.sweepIntervalMs;
    this.instanceId = options.instanceId ?? newInstanceId();
    this.#instanceTtlMs = options.instanceTtlMs ?? RUNTIME_DEFAULTS.instanceTtlMs;
    this.#liveness = new InstanceLiveness({
      store: this.#store,
      instanceId: this.instanceId,
      ttlMs: this.#instanceTtlMs,
      heartbeatMs: options.heartbeatMs ?? RUNTIME_DEFAULTS.heartbeatMs,
      logger: this.#logger,
    });
    this.#waiters = new ApprovalWaiters({
      pollIntervalMs: options.pollIntervalMs ?? RUNTIME_DEFAULTS.pollIntervalMs,
      recheck: (approvalId) => this.#recheck(approvalId),
    });
    this.#resolver = new ApprovalResolver({
      store: this.#store,
      audit: options.audit,
      bus,
      waiters: this.#waiters,
      logger: this.#logger,
      now: this.#now,
      keepMs: this.#keepMs,
      instanceId: this.instanceId,
      // Its liveness lapses within a TTL of dying; twice that is time to see it gone.
      markGraceMs: 2 * this.#instanceTtlMs,
      seal: (record) => ({ ...record, mac: this.#sealer.seal('approval', record.id, decisionFields(record)) }),
      onResolved: (record) => this.#emit('hitl-option-resolved', record),
    });
    this.#resume = new ApprovalResume({
      store: this.#store,
      waiters: this.#waiters,
      resolver: this.#resolver,
      instanceId: this.instanceId,
      logger: this.#logger,
      armDeadline: (record) => this.#armDeadline(record),
    });
    this.#asker = {
      store: this.#store, sealer: this.#sealer, waiters: this.#waiters, resolver: this.#resolver, resume: this.#resume,
      logger: this.#logger, now: this.#now, keepMs: this.#keepMs, instanceId: this.instanceId,
      emit: (event, record) => this.#emit(event, record),
      armDeadline: (record) => this.#armDeadline(record),
    };
    this.#subscription = bus.subscribe((approvalId) => this.#recheck(approvalId));
    // Without the bus, answers still arrive through the waiters' re-reads; start() reports the failure.
    this.#subscription.catch((error: unknown) => this.#logger.warn({ err: error }, 'subscribing to approval changes failed'));
  }

  /**
   * Call once at start, after the store opened: waits for the bus subscription, writes this instance's liveness
   * record (then a heartbeat keeps it), expires the questions of instances that are gone (`expireStale`), and
   * repeats that sweep every `sweepIntervalMs`. Returns how many expired now. Rejects when the store or the bus fails.
   */
  async start(): Promise<number> {
    if (this.#closed) throw new Error('The approval runtime is closed.');
    await this.#subscription;
    await this.#liveness.ensure();
    const expired = await this.expireStale();
    if (this.#sweeper === undefined && !this.#closed) {
      this.#sweeper = setInterval(() => this.#sweep(), this.#sweepIntervalMs);
      this.#sweeper.unref();
    }
    return expired;
  }

  /** `platform` is the world id's prefix (`slack`, `discord`, `terminal`). Returns a remover. */
  addPresenter(platform: string, presenter: ApprovalPresenter): () => void {
    return this.#resolver.addPresenter(platform, presenter);
  }

  /**
   * Ask, and resolve with the record once answered, timed out, or (when nobody can be asked) at once with the
   * default. With `resumeKey`, an earlier question under that key asking the same is awaited (or returned, when
   * answered already) instead of asking again. Rejects only when the question cannot be stored in the first place.
   */
  async request(input: ApprovalRequestInput): Promise<ApprovalRecord> {
    if (this.#closed) throw new Error('The approval runtime is closed.');
    // A question must never be stored under an instance that others cannot see alive.
    await this.#liveness.ensure();
    const resumed = input.resumeKey === undefined ? undefined : await this.#resume.resume(input, input.resumeKey);
    const answer = resumed === RUN_STARTED ? await askPeople(this.#asker, askedAgain(input)) : (resumed ?? (await askPeople(this.#asker, input)));
    void this.#resolver.ensureMarked(answer);
    return answer;
  }

  /**
   * Marks in the store, before it starts, that a run under `record` (a "yes, once") begins. False when one had
   * already: that answer is used up. A re-run of the turn then asks again (request() says why on the card).
   */
  async markRunStarted(record: ApprovalRecord): Promise<boolean> {
    const ttlMs = Math.max(record.expiresAt - this.#now(), 0) + this.#keepMs;
    return this.#store.claim('approvals', runStartedKey(record.id), { at: this.#now(), instanceId: this.instanceId }, ttlMs);
  }

  /**
   * Whether a resolved record's decision was written by an instance holding the state key. A record put into
   * the store some other way (a forged "yes") fails, and must be treated as no answer at all.
   */
  isAuthentic(record: ApprovalRecord): boolean {
    return this.#sealer.verify('approval', record.id, decisionFields(record), record.mac) && this.#askedByUs(record);
  }

  /** Whether who asked, where and what runs are as the bot stored them when it asked. */
  #askedByUs(record: ApprovalRecord): boolean {
    return this.#sealer.verify('pending', record.id, pendingFields(record), record.pendingMac);
  }

  /** A click or typed answer. Exactly one response (across instances) is accepted per approval. */
  async respond(input: ApprovalResponseInput): Promise<ResponseResult> {
    const record = await this.#store.get<ApprovalRecord>('approvals', input.approvalId);
    // A key that is no approval (a resume index, a crafted id) is not found either.
    if (record === undefined || (record.status !== 'pending' && record.status !== 'resolved')) return { kind: 'not_found' };
    const option = input.option;
    if (!isOption(option) || !record.options.includes(option)) return { kind: 'invalid_option' };
    if (record.status === 'pending' && !this.#askedByUs(record)) {
      // Changed in the store while open (another requester who then may answer, other items): nobody's answer
      // counts; the question is closed as not run, and the turn is told its record failed the integrity check.
      this.#logger.warn({ approvalId: record.id, worldId: record.worldId }, 'an open approval record failed its integrity check; closed unanswered');
      const closed = await this.#resolver.resolve(record.id, 'expired', SYSTEM_DECIDERS.integrity);
      return closed === undefined ? { kind: 'not_found' } : { kind: 'already_resolved', record: closed.record };
    }
    if (record.worldId !== input.worldId) return { kind: 'wrong_world', record };
    if (!mayAnswer(record, input.userId, this.#approversFor, this.#logger)) {
      await tellNotAllowed(this.#resolver.presenterFor(record.worldId), record, input.userId, this.#logger);
      return { kind: 'not_allowed', record };
    }
    if (record.status !== 'pending') return { kind: 'already_resolved', record };
    const result = await this.#resolver.resolve(record.id, option, input.userId);
    if (result === undefined) return { kind: 'not_found' };
    return result.won ? { kind: 'accepted', record: result.record } : { kind: 'already_resolved', record: result.record };
  }

  /**
   * Someone picked other choices on a question that offers picks (an install card of a collection): it closes with
   * nothing run (`system:replaced`, who picked what sealed with it) and its asker asks anew for exactly those.
   * Its answerers may, and its requester (a pick narrows what is asked; it approves nothing).
   */
  async replace(input: { worldId: string; approvalId: string; userId: string; picked: string[] }): Promise<ResponseResult> {
    const record = await this.#store.get<ApprovalRecord>('approvals', input.approvalId);
    if (record?.picks === undefined || (record.status !== 'pending' && record.status !== 'resolved')) return { kind: 'not_found' };
    const picked = [...new Set(input.picked)];
    if (picked.length === 0 || picked.some((choice) => !record.picks?.choices.includes(choice))) return { kind: 'invalid_option' };
    if (record.status === 'pending' && !this.#askedByUs(record)) return this.respond({ ...input, option: record.defaultOption });
    if (record.worldId !== input.worldId) return { kind: 'wrong_world', record };
    if (input.userId !== record.requesterId && !mayAnswer(record, input.userId, this.#approversFor, this.#logger)) return { kind: 'not_allowed', record };
    if (record.status !== 'pending') return { kind: 'already_resolved', record };
    const result = await this.#resolver.resolve(record.id, 'no', SYSTEM_DECIDERS.replaced, { repicked: { by: input.userId, picked } });
    if (result === undefined) return { kind: 'not_found' };
    return result.won ? { kind: 'accepted', record: result.record } : { kind: 'already_resolved', record: result.record };
  }

  /**
   * Resolves the pending questions nobody awaits any more: those whose instance is gone (its liveness record
   * lapsed or was removed; `expired`, decided by `system:restart`) and those past their deadline by more than
   * `instanceTtlMs` (`timeout`; their own instance normally times them out on time).
   * Their messages say so (through a presenter added later if the platform has none yet). Questions of live
   * instances are left alone. start() runs it, then periodically. Returns how many it resolved.
   */
  async expireStale(): Promise<number> {
    const stale = await findStaleApprovals(this.#store, {
      instanceId: this.instanceId,
      now: this.#now(),
      deadlineGraceMs: this.#instanceTtlMs,
      awaiting: (approvalId) => this.#waiters.has(approvalId),
    });
    let resolved = 0;
    for (const { approvalId, outcome, decidedBy } of stale) {
      const result = await this.#resolver.resolve(approvalId, outcome, decidedBy);
      if (result?.won === true) resolved += 1;
    }
    return resolved;
  }

  /** Questions a turn on this instance is waiting on now. */
  awaitedHere(): ApprovalRecord[] {
    return this.#waiters.all().map((waiter) => waiter.record);
  }

  /**
   * Stops the heartbeat, the sweeper and the timers. Call before store.close(). By default questions still open
   * resolve `expired` (their messages say so) and this instance's liveness record is removed. With `handOver`
   * (a graceful shutdown while other instances run) they stay pending, so a re-run of their turn elsewhere can
   * resume them by resumeKey; the liveness record is left to lapse within its TTL, after which another
   * instance's sweeper expires whatever nobody resumed. Requests awaited here then end locally as `expired`
   * (decidedBy `system:handover`), with no audit record or message update: the store still says pending.
   */
  async close(options: { handOver?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    await this.#sweeping;
    const open = this.#waiters.all();
    if (options.handOver === true) {
      for (const waiter of open) this.#waiters.settle(resolvedRecord(waiter.record, 'expired', SYSTEM_DECIDERS.handover, this.#now()));
    } else {
      await Promise.all(open.map((waiter) => this.#resolver.resolveOrSettle(waiter.record.id, 'expired', SYSTEM_DECIDERS.shutdown)));
    }
    const unsubscribe = await this.#subscription.catch(() => undefined);
    await unsubscribe?.().catch((error: unknown) => this.#logger.warn({ err: error }, 'unsubscribing from approval changes failed'));
    await this.#liveness
      .stop({ remove: options.handOver !== true })
      .catch((error: unknown) => this.#logger.warn({ err: error, instanceId: this.instanceId }, 'removing the instance liveness record failed'));
  }

  #armDeadline(record: ApprovalRecord): void {
    this.#waiters.armDeadline(record.id, record.expiresAt - this.#now(), () =>
      void this.#resolver.resolveOrSettle(record.id, 'timeout', SYSTEM_DECIDERS.timeout),
    );
  }

  #sweep(): void {
    if (this.#sweeping !== undefined || this.#closed) return;
    this.#sweeping = this.expireStale()
      .then((resolved) => {
        if (resolved > 0) this.#logger.info({ resolved }, 'resolved approvals nobody awaits any more');
      })
      .catch((error: unknown) => this.#logger.warn({ err: error }, 'sweeping stale approvals failed'))
      .finally(() => {
        this.#sweeping = undefined;
      });
  }

  /** A bus message or a waiter's poll: re-read the record, and hand it over once resolved. */
  #recheck(approvalId: string): void {
    if (!this.#waiters.has(approvalId)) return;
    this.#store
      .get<ApprovalRecord>('approvals', approvalId)
      .then((record) => {
        if (record?.status === 'resolved') this.#waiters.settle(record);
      })
      .catch((error: unknown) => this.#logger.debug({ err: error, approvalId }, 're-reading an awaited approval failed'));
  }

  #emit(event: keyof ApprovalEvents, record: ApprovalRecord): void {
    try {
      this.emit(event, record);
    } catch (error) {
      this.#logger.error({ err: error, approvalId: record.id, event }, 'an approval event listener threw');
    }
  }
}
