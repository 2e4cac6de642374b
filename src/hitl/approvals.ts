// The approval runtime: puts a question to people in a world and resolves it exactly once.
import { EventEmitter } from 'node:events';
import { silentLogger, type Logger } from '../log.ts';
import type { Store } from '../store/types.ts';
import { createLocalApprovalBus, type ApprovalBus } from './approvalBus.ts';
import { approvalAuditEntry, type AuditLog } from './audit.ts';
import { isOption, newApprovalRecord, platformOf, resolvedRecord, SYSTEM_DECIDERS } from './approvalRecord.ts';
import type {
  ApprovalOutcome,
  ApprovalPresenter,
  ApprovalRecord,
  ApprovalRequestInput,
  ApprovalResponseInput,
  ResponseResult,
} from './types.ts';

export { platformOf, SYSTEM_DECIDER_PREFIX, SYSTEM_DECIDERS } from './approvalRecord.ts';

export interface ApprovalRuntimeOptions {
  store: Store;
  /** The world's configured approvers (platform user ids), besides the requester. */
  approversFor: (worldId: string) => string[];
  logger?: Logger;
  audit: AuditLog;
  now?: () => number;
  /** Tells other instances that an approval was resolved; defaults to one inside this process. */
  bus?: ApprovalBus;
  /** How long a record is kept after its deadline or resolution, so a late click still finds it. */
  keepMs?: number;
}

export interface ApprovalEvents {
  'hitl-option-request': [ApprovalRecord];
  'hitl-option-resolved': [ApprovalRecord];
}

export const NOT_ALLOWED_TEXT = "Only the person who asked, or one of this channel's approvers, can answer this approval.";

const DEFAULT_KEEP_MS = 24 * 60 * 60 * 1000;

interface Waiter {
  /** The local copy, holding platformRef as soon as the presenter returns it. */
  record: ApprovalRecord;
  settle: (record: ApprovalRecord) => void;
  timer?: NodeJS.Timeout;
}

export class ApprovalRuntime extends EventEmitter<ApprovalEvents> {
  readonly #store: Store;
  readonly #approversFor: (worldId: string) => string[];
  readonly #logger: Logger;
  readonly #audit: AuditLog;
  readonly #now: () => number;
  readonly #bus: ApprovalBus;
  readonly #keepMs: number;
  readonly #unsubscribe: () => void;
  readonly #presenters = new Map<string, ApprovalPresenter>();
  readonly #waiters = new Map<string, Waiter>();
  /** Resolved records whose platform had no presenter yet; marked when it is added. */
  #unannounced: ApprovalRecord[] = [];
  #closed = false;

  constructor(options: ApprovalRuntimeOptions) {
    super();
    this.#store = options.store;
    this.#approversFor = options.approversFor;
    this.#logger = options.logger ?? silentLogger();
    this.#audit = options.audit;
    this.#now = options.now ?? Date.now;
    this.#bus = options.bus ?? createLocalApprovalBus();
    this.#keepMs = options.keepMs ?? DEFAULT_KEEP_MS;
    this.#unsubscribe = this.#bus.subscribe((approvalId) => this.#onResolvedElsewhere(approvalId));
  }

  /** `platform` is the world id's prefix (`slack`, `discord`, `terminal`). Returns a remover. */
  addPresenter(platform: string, presenter: ApprovalPresenter): () => void {
    this.#presenters.set(platform, presenter);
    const due = this.#unannounced.filter((record) => platformOf(record.worldId) === platform);
    this.#unannounced = this.#unannounced.filter((record) => platformOf(record.worldId) !== platform);
    for (const record of due) {
      Promise.resolve()
        .then(() => presenter.resolved(record))
        .catch((error: unknown) => this.#logger.warn({ err: error, approvalId: record.id }, 'marking an approval resolved failed'));
    }
    return () => {
      if (this.#presenters.get(platform) === presenter) this.#presenters.delete(platform);
    };
  }

  /**
   * Ask, and resolve with the record once answered, timed out, or (when nobody can be asked) at once with the
   * default. Rejects only when the question cannot be stored in the first place.
   */
  async request(input: ApprovalRequestInput): Promise<ApprovalRecord> {
    if (this.#closed) throw new Error('The approval runtime is closed.');
    const record = newApprovalRecord(input, this.#now());
    const { defaultOption } = record;
    await this.#store.set('approvals', record.id, record, input.timeoutMs + this.#keepMs);

    const waiter: Waiter = { record, settle: () => undefined };
    const answered = new Promise<ApprovalRecord>((resolve) => (waiter.settle = resolve));
    this.#waiters.set(record.id, waiter);
    this.#emit('hitl-option-request', record);

    const presenter = this.#presenters.get(platformOf(record.worldId));
    if (presenter === undefined) {
      await this.#resolveOrSettle(record.id, defaultOption, SYSTEM_DECIDERS.unattended);
      return answered;
    }
    // Armed before presenting: a presenter that hangs must not hold the turn past the timeout.
    waiter.timer = setTimeout(() => void this.#resolveOrSettle(record.id, 'timeout', SYSTEM_DECIDERS.timeout), input.timeoutMs);
    waiter.timer.unref();
    let platformRef: string | undefined;
    try {
      platformRef = await presenter.present(record);
    } catch (error) {
      this.#logger.error({ err: error, approvalId: record.id, chatId: record.chatId }, 'approval presenter failed; the default answer applies');
      await this.#resolveOrSettle(record.id, defaultOption, SYSTEM_DECIDERS.unattended);
      return answered;
    }
    if (platformRef !== undefined) await this.#keepPlatformRef(record, platformRef, presenter);
    return answered;
  }

  /** A click or typed answer. Exactly one response (across instances) is accepted per approval. */
  async respond(input: ApprovalResponseInput): Promise<ResponseResult> {
    const record = await this.#store.get<ApprovalRecord>('approvals', input.approvalId);
    if (record === undefined) return { kind: 'not_found' };
    const option = input.option;
    if (!isOption(option) || !record.options.includes(option)) return { kind: 'invalid_option' };
    if (record.worldId !== input.worldId) return { kind: 'wrong_world', record };
    if (!this.#mayAnswer(record, input.userId)) {
      await this.#tellPrivately(record, input.userId);
      return { kind: 'not_allowed', record };
    }
    if (record.status !== 'pending') return { kind: 'already_resolved', record };
    const result = await this.#resolve(record.id, option, input.userId);
    if (result === undefined) return { kind: 'not_found' };
    return result.won ? { kind: 'accepted', record: result.record } : { kind: 'already_resolved', record: result.record };
  }

  /**
   * Call at start. Every pending record no request of this runtime awaits belongs to a process that is gone:
   * it resolves `expired`, and its message says so (through a presenter added later if its platform has none
   * yet). Assumes one instance per store; several need per-instance leases first. Returns how many expired.
   */
  async expireStale(): Promise<number> {
    const rows = await this.#store.list<ApprovalRecord>('approvals', '');
    let expired = 0;
    for (const { key, value } of rows) {
      if (value.status !== 'pending' || this.#waiters.has(key)) continue;
      const result = await this.#resolve(key, 'expired', SYSTEM_DECIDERS.restart);
      if (result?.won === true) expired += 1;
    }
    return expired;
  }

  /** Stops the timers; questions still open resolve `expired` (their messages say so). Call before store.close(). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    const open = [...this.#waiters.values()];
    for (const waiter of open) clearTimeout(waiter.timer);
    await Promise.all(open.map((waiter) => this.#resolveOrSettle(waiter.record.id, 'expired', SYSTEM_DECIDERS.shutdown)));
  }

  #mayAnswer(record: ApprovalRecord, userId: string): boolean {
    if (userId === record.requesterId) return true;
    try {
      return this.#approversFor(record.worldId).includes(userId);
    } catch (error) {
      this.#logger.error({ err: error, worldId: record.worldId }, 'reading the approvers failed');
      return false;
    }
  }

  async #tellPrivately(record: ApprovalRecord, userId: string): Promise<void> {
    const presenter = this.#presenters.get(platformOf(record.worldId));
    try {
      await presenter?.tellPrivately(record, userId, NOT_ALLOWED_TEXT);
    } catch (error) {
      this.#logger.warn({ err: error, approvalId: record.id }, 'telling a user privately failed');
    }
  }

  /**
   * Resolve through the store's compare-and-set. A store failure must not leave a turn waiting forever: the
   * local request then settles with the given (system) outcome, and the next start expires the stored record.
   */
  async #resolveOrSettle(id: string, outcome: ApprovalOutcome, decidedBy: string): Promise<void> {
    try {
      await this.#resolve(id, outcome, decidedBy);
    } catch (error) {
      this.#logger.error({ err: error, approvalId: id }, 'resolving an approval in the store failed');
      const waiter = this.#waiters.get(id);
      if (waiter === undefined) return;
      this.#settle(resolvedRecord(waiter.record, outcome, decidedBy, this.#now()));
    }
  }

  async #resolve(id: string, outcome: ApprovalOutcome, decidedBy: string): Promise<{ won: boolean; record: ApprovalRecord } | undefined> {
    const stored = await this.#store.get<ApprovalRecord>('approvals', id);
    const local = this.#waiters.get(id)?.record;
    if (stored === undefined) {
      // Aged out of the store while awaited: nobody can answer it any more.
      if (local !== undefined) this.#settle(resolvedRecord(local, 'expired', decidedBy, this.#now()));
      return undefined;
    }
    if (stored.status !== 'pending') {
      this.#settle(stored);
      return { won: false, record: stored };
    }
    const platformRef = stored.platformRef ?? local?.platformRef;
    const next = resolvedRecord(platformRef === undefined ? stored : { ...stored, platformRef }, outcome, decidedBy, this.#now());
    if (!(await this.#store.compareAndSet('approvals', id, 'pending', next, this.#keepMs))) {
      const current = (await this.#store.get<ApprovalRecord>('approvals', id)) ?? stored;
      if (current.status === 'resolved') this.#settle(current);
      return { won: false, record: current };
    }
    await this.#afterResolved(next);
    return { won: true, record: next };
  }

  // Audit first (an operator's record must exist once the turn goes on), then the waiting turn, then the message.
  async #afterResolved(record: ApprovalRecord): Promise<void> {
    try {
      await this.#audit.record(approvalAuditEntry(record));
    } catch (error) {
      this.#logger.error({ err: error, approvalId: record.id }, 'writing the approval audit record failed');
    }
    this.#settle(record);
    this.#bus.publish(record.id).catch((error: unknown) => this.#logger.warn({ err: error, approvalId: record.id }, 'publishing a resolution failed'));
    const presenter = this.#presenters.get(platformOf(record.worldId));
    if (presenter === undefined) {
      // Only a question once shown has a message to update (pipe mode showed none). Typically expireStale ran
      // before the adapters started: the message is updated when the platform's presenter is added.
      if (record.platformRef !== undefined) this.#unannounced.push(record);
    } else {
      try {
        await presenter.resolved(record);
      } catch (error) {
        this.#logger.warn({ err: error, approvalId: record.id }, 'marking an approval resolved failed');
      }
    }
    this.#emit('hitl-option-resolved', record);
  }

  /** Stores the presenter's reference so any instance can update the message; handles a resolution that won the race. */
  async #keepPlatformRef(record: ApprovalRecord, platformRef: string, presenter: ApprovalPresenter): Promise<void> {
    const waiter = this.#waiters.get(record.id);
    if (waiter !== undefined) waiter.record = { ...waiter.record, platformRef };
    try {
      const shown: ApprovalRecord = { ...record, platformRef };
      // Without a TTL the record keeps the expiry it was stored with.
      if (await this.#store.compareAndSet('approvals', record.id, 'pending', shown)) return;
      const current = await this.#store.get<ApprovalRecord>('approvals', record.id);
      // Resolved before its message existed: mark the message now, or it would stay open forever.
      if (current?.status === 'resolved' && current.platformRef === undefined) await presenter.resolved({ ...current, platformRef });
    } catch (error) {
      // The local copy still holds the reference, so this instance can update the message when it resolves.
      this.#logger.warn({ err: error, approvalId: record.id }, 'storing the approval message reference failed');
    }
  }

  #onResolvedElsewhere(approvalId: string): void {
    if (!this.#waiters.has(approvalId)) return;
    this.#store
      .get<ApprovalRecord>('approvals', approvalId)
      .then((record) => {
        if (record?.status === 'resolved') this.#settle(record);
      })
      .catch((error: unknown) => this.#logger.warn({ err: error, approvalId }, 're-reading a resolved approval failed'));
  }

  #settle(record: ApprovalRecord): void {
    const waiter = this.#waiters.get(record.id);
    if (waiter === undefined) return;
    clearTimeout(waiter.timer);
    this.#waiters.delete(record.id);
    waiter.settle(record);
  }

  #emit(event: keyof ApprovalEvents, record: ApprovalRecord): void {
    try {
      this.emit(event, record);
    } catch (error) {
      this.#logger.error({ err: error, approvalId: record.id, event }, 'an approval event listener threw');
    }
  }
}
