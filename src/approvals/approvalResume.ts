// "Resume instead of re-ask": a re-run of a turn awaits the question its first run showed.
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { resumeIndexKey, runStartedKey, sameQuestion, SYSTEM_DECIDERS, type ResumeIndex } from './approvalRecord.ts';
import type { ApprovalResolver } from './approvalResolver.ts';
import type { ApprovalWaiters } from './approvalWaiters.ts';
import type { ApprovalRecord, ApprovalRequestInput } from './types.ts';

export interface ApprovalResumeDeps {
  store: Store;
  waiters: ApprovalWaiters;
  resolver: ApprovalResolver;
  instanceId: string;
  logger: Logger;
  /** Starts the deadline timer of a question this instance now awaits. */
  armDeadline: (record: ApprovalRecord) => void;
}

/** What resume() answers for a "yes, once" whose run had started: it is used up, and the caller asks anew, saying why. */
export const RUN_STARTED = Symbol('run started');

/**
 * The store maps `resume:<resumeKey>` to the question's id ('approvals' namespace, same TTL as the question).
 * A question is resumed only when it asks exactly the same; an answer or a timeout is returned as it stands; an
 * expiry, or a question whose message never went out, is no answer: the caller asks anew. A "yes, once" whose run
 * had started (the bot crashed or stopped during it) is never resumed: RUN_STARTED.
 */
export class ApprovalResume {
  readonly #deps: ApprovalResumeDeps;

  constructor(deps: ApprovalResumeDeps) {
    this.#deps = deps;
  }

  /** The earlier question under `resumeKey`, awaited (or as answered), or undefined when it must be asked anew. */
  async resume(input: ApprovalRequestInput, resumeKey: string): Promise<Promise<ApprovalRecord> | typeof RUN_STARTED | undefined> {
    const { store, waiters, resolver } = this.#deps;
    const index = await store.get<ResumeIndex>('approvals', resumeIndexKey(resumeKey));
    if (index === undefined) return undefined;
    const record = await store.get<ApprovalRecord>('approvals', index.approvalId);
    if (record === undefined || !sameQuestion(record, input)) return undefined;
    if (record.status === 'resolved') {
      if (record.outcome === 'yes_once' && (await store.get('approvals', runStartedKey(record.id))) !== undefined) return RUN_STARTED;
      return answered(record);
    }
    const local = waiters.get(record.id);
    if (local !== undefined) return local.answered;
    if (record.presentedAt === undefined) {
      // Its asker went away before the message was out (or while presenting): nobody could have clicked it.
      const result = await resolver.resolve(record.id, 'expired', SYSTEM_DECIDERS.restart);
      return result === undefined || result.won ? undefined : answered(result.record);
    }
    return this.#adopt(record);
  }

  /**
   * Points `resumeKey` at a new question, already stored and not yet shown. When another question holds the
   * key (two runs of one turn at once) and can be resumed, that one is returned to await and the new one is
   * dropped; otherwise the key is moved to the new one.
   */
  async claimKey(record: ApprovalRecord, input: ApprovalRequestInput, resumeKey: string, ttlMs: number): Promise<Promise<ApprovalRecord> | undefined> {
    const { store, waiters } = this.#deps;
    const index: ResumeIndex = { approvalId: record.id };
    if (await store.claim('approvals', resumeIndexKey(resumeKey), index, ttlMs)) return undefined;
    const other = await this.resume(input, resumeKey);
    if (other !== undefined && other !== RUN_STARTED) {
      waiters.drop(record.id);
      await store.delete('approvals', record.id);
      return other;
    }
    await store.set('approvals', resumeIndexKey(resumeKey), index, ttlMs);
    return undefined;
  }

  /** Awaits a question another instance asked: it becomes this instance's, so no sweeper takes it for an orphan. */
  async #adopt(record: ApprovalRecord): Promise<Promise<ApprovalRecord> | undefined> {
    const { store, waiters, instanceId, logger } = this.#deps;
    const adopted: ApprovalRecord = { ...record, instanceId };
    // Registered before the record changes hands, so this instance's own sweeper never sees it unawaited.
    const waiter = waiters.add(adopted);
    try {
      // Without a TTL the record keeps the expiry it was stored with.
      if (!(await store.compareAndSet('approvals', record.id, 'pending', adopted))) {
        const current = await store.get<ApprovalRecord>('approvals', record.id);
        waiters.drop(record.id);
        return current?.status === 'resolved' ? answered(current) : undefined;
      }
    } catch (error) {
      waiters.drop(record.id);
      throw error;
    }
    logger.info({ approvalId: record.id, from: record.instanceId, chatId: record.chatId }, 'resumed an approval asked before');
    this.#deps.armDeadline(adopted);
    return waiter.answered;
  }
}

/** A resolved question to hand back as it stands, unless it only expired (no one answered): then ask again. */
function answered(record: ApprovalRecord): Promise<ApprovalRecord> | undefined {
  return record.outcome === 'expired' ? undefined : Promise.resolve(record);
}

/** The question again, after a "yes, once" whose run had started when the bot stopped: the card says why. */
export function askedAgain(input: ApprovalRequestInput): ApprovalRequestInput {
  return {
    ...input,
    body:
      'Asked again: the bot stopped (a restart or a crash) while the run you approved with "Yes, once" was under way, ' +
      'so that answer is used up and the run may have done part of its work.\n' +
      input.body,
  };
}
