// Resolving a question exactly once, and telling everyone: the audit trail, the waiting turn, the bus, the message.
import { setTimeout as delay } from 'node:timers/promises';
import { isInstanceAlive } from '../chats/instanceLiveness.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import type { ApprovalBus } from './approvalBus.ts';
import { platformOf, resolvedRecord } from './approvalRecord.ts';
import type { ApprovalWaiters } from './approvalWaiters.ts';
import { approvalAuditEntry, type AuditLog } from './audit.ts';
import type { ApprovalOutcome, ApprovalPresenter, ApprovalRecord } from './types.ts';

export interface ApprovalResolverDeps {
  store: Store;
  audit: AuditLog;
  bus: ApprovalBus;
  waiters: ApprovalWaiters;
  logger: Logger;
  now: () => number;
  keepMs: number;
  /** This instance: it goes on resolved records as `decidedOn`. */
  instanceId: string;
  /** How long a turn's instance gives another that decided its question to mark the message (see ensureMarked). */
  markGraceMs: number;
  /** The decision with its MAC (see ApprovalRuntime.isAuthentic). */
  seal: (record: ApprovalRecord) => ApprovalRecord;
  /** Called once per question, by the one resolution that won. */
  onResolved: (record: ApprovalRecord) => void;
}

export type Resolution = { won: boolean; record: ApprovalRecord };

/**
 * Every resolution goes through the store's compare-and-set from `pending`, so exactly one wins across
 * instances (a double click, two instances taking clicks, a click racing the timer or a sweeper).
 */
export class ApprovalResolver {
  readonly #deps: ApprovalResolverDeps;
  readonly #presenters = new Map<string, ApprovalPresenter>();
  /** Resolved records whose platform had no presenter yet; marked when it is added. */
  #unannounced: ApprovalRecord[] = [];

  constructor(deps: ApprovalResolverDeps) {
    this.#deps = deps;
  }

  addPresenter(platform: string, presenter: ApprovalPresenter): () => void {
    this.#presenters.set(platform, presenter);
    const due = this.#unannounced.filter((record) => platformOf(record.worldId) === platform);
    this.#unannounced = this.#unannounced.filter((record) => platformOf(record.worldId) !== platform);
    for (const record of due) {
      Promise.resolve()
        .then(() => presenter.resolved(record))
        .catch((error: unknown) => this.#deps.logger.warn({ err: error, approvalId: record.id }, 'marking an approval resolved failed'));
    }
    return () => {
      if (this.#presenters.get(platform) === presenter) this.#presenters.delete(platform);
    };
  }

  presenterFor(worldId: string): ApprovalPresenter | undefined {
    return this.#presenters.get(platformOf(worldId));
  }

  /**
   * A store failure must not leave a turn waiting forever: the local request then settles with the given
   * (system) outcome, and a sweeper expires the stored record later.
   */
  async resolveOrSettle(id: string, outcome: ApprovalOutcome, decidedBy: string): Promise<void> {
    const { waiters, logger, now } = this.#deps;
    try {
      await this.resolve(id, outcome, decidedBy);
    } catch (error) {
      logger.error({ err: error, approvalId: id }, 'resolving an approval in the store failed');
      const waiter = waiters.get(id);
      if (waiter !== undefined) waiters.settle(resolvedRecord(waiter.record, outcome, decidedBy, now()));
    }
  }

  /** Undefined when the record is gone; otherwise whether this call won, and the record as it now stands. */
  async resolve(id: string, outcome: ApprovalOutcome, decidedBy: string, extra: Pick<ApprovalRecord, 'repicked'> = {}): Promise<Resolution | undefined> {
    const { store, waiters, now, keepMs, seal, instanceId } = this.#deps;
    const stored = await store.get<ApprovalRecord>('approvals', id);
    const local = waiters.get(id)?.record;
    if (stored === undefined) {
      // Aged out of the store while awaited: nobody can answer it any more.
      if (local !== undefined) waiters.settle(resolvedRecord(local, 'expired', decidedBy, now()));
      return undefined;
    }
    if (stored.status !== 'pending') {
      waiters.settle(stored);
      return { won: false, record: stored };
    }
    const platformRef = stored.platformRef ?? local?.platformRef;
    const next = seal({ ...resolvedRecord(platformRef === undefined ? stored : { ...stored, platformRef }, outcome, decidedBy, now()), ...extra, decidedOn: instanceId });
    if (!(await store.compareAndSet('approvals', id, 'pending', next, keepMs))) {
      const current = (await store.get<ApprovalRecord>('approvals', id)) ?? stored;
      if (current.status === 'resolved') waiters.settle(current);
      return { won: false, record: current };
    }
    await this.#afterResolved(next);
    return { won: true, record: next };
  }

  // Audit first (an operator's record must exist once the turn goes on), then the waiting turn, then the message.
  async #afterResolved(record: ApprovalRecord): Promise<void> {
    const { audit, bus, waiters, logger } = this.#deps;
    try {
      await audit.record(approvalAuditEntry(record));
    } catch (error) {
      logger.error({ err: error, approvalId: record.id }, 'writing the approval audit record failed');
    }
    waiters.settle(record);
    bus.publish(record.id).catch((error: unknown) => logger.warn({ err: error, approvalId: record.id }, 'publishing a resolution failed'));
    const presenter = this.presenterFor(record.worldId);
    if (presenter === undefined) {
      // Only a question once shown has a message to update (pipe mode showed none). Typically a sweep ran
      // before the adapters started: the message is updated when the platform's presenter is added.
      if (record.platformRef !== undefined) this.#unannounced.push(record);
    } else {
      try {
        await presenter.resolved(record);
      } catch (error) {
        logger.warn({ err: error, approvalId: record.id }, 'marking an approval resolved failed');
      }
    }
    this.#deps.onResolved(record);
  }

  /**
   * The turn that asked has its answer. The instance that decided it marks its message; if that one died before
   * the platform took the update (killed in a 429's wait), the buttons would stand on a decided question. So once
   * the decider has had `markGraceMs` to finish or be seen dead, the message of a dead decider is marked here.
   */
  async ensureMarked(record: ApprovalRecord): Promise<void> {
    const { store, instanceId, markGraceMs, logger } = this.#deps;
    const { decidedOn } = record;
    // Only a decision the store holds (sealed): a turn let go unanswered (a handover) leaves its question open.
    if (record.status !== 'resolved' || record.platformRef === undefined || record.mac === undefined) return;
    if (decidedOn === undefined || decidedOn === instanceId) return;
    await delay(markGraceMs, undefined, { ref: false });
    // A store that cannot tell (or is closed) counts the decider as alive: its own update stands.
    if (await isInstanceAlive(store, decidedOn).catch(() => true)) return;
    try {
      await this.presenterFor(record.worldId)?.resolved(record);
    } catch (error) {
      logger.warn({ err: error, approvalId: record.id }, 'marking an approval resolved failed');
    }
  }
}
