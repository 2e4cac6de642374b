// Putting one question to people: stored (sealed, under its instance), shown by the world's presenter, and
// answered by the default at once when nobody can be asked. ApprovalRuntime.request calls it.
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { newApprovalRecord, pendingFields, SYSTEM_DECIDERS } from './approvalRecord.ts';
import type { ApprovalResolver } from './approvalResolver.ts';
import type { ApprovalResume } from './approvalResume.ts';
import type { ApprovalWaiters } from './approvalWaiters.ts';
import type { RecordSealer } from './recordSeal.ts';
import type { ApprovalEvents } from './runtimeOptions.ts';
import type { ApprovalPresenter, ApprovalRecord, ApprovalRequestInput } from './types.ts';

/** What asking needs of the runtime. */
export interface Asker {
  store: Store;
  sealer: RecordSealer;
  waiters: ApprovalWaiters;
  resolver: ApprovalResolver;
  resume: ApprovalResume;
  logger: Logger;
  now: () => number;
  keepMs: number;
  instanceId: string;
  emit: (event: keyof ApprovalEvents, record: ApprovalRecord) => void;
  armDeadline: (record: ApprovalRecord) => void;
}

/** Ask, and resolve with the record once answered, timed out or answered by default. */
export async function askPeople(asker: Asker, input: ApprovalRequestInput): Promise<ApprovalRecord> {
  const asked = newApprovalRecord(input, asker.now(), asker.instanceId);
  const record: ApprovalRecord = { ...asked, pendingMac: asker.sealer.seal('pending', asked.id, pendingFields(asked)) };
  const { defaultOption } = record;
  const ttlMs = input.timeoutMs + asker.keepMs;
  const waiter = asker.waiters.add(record);
  try {
    await asker.store.set('approvals', record.id, record, ttlMs);
    if (input.resumeKey !== undefined) {
      const other = await asker.resume.claimKey(record, input, input.resumeKey, ttlMs);
      if (other !== undefined) return await other;
    }
  } catch (error) {
    asker.waiters.drop(record.id);
    throw error;
  }
  asker.emit('hitl-option-request', record);

  const presenter = asker.resolver.presenterFor(record.worldId);
  if (presenter === undefined) {
    await asker.resolver.resolveOrSettle(record.id, defaultOption, SYSTEM_DECIDERS.unattended);
    return waiter.answered;
  }
  // Armed before presenting: a presenter that hangs must not hold the turn past the timeout.
  asker.armDeadline(record);
  let platformRef: string | undefined;
  try {
    platformRef = await presenter.present(record);
  } catch (error) {
    asker.logger.error({ err: error, approvalId: record.id, chatId: record.chatId }, 'approval presenter failed; the default answer applies');
    await asker.resolver.resolveOrSettle(record.id, defaultOption, SYSTEM_DECIDERS.unattended);
    return waiter.answered;
  }
  await markPresented(asker, record, platformRef, presenter);
  return waiter.answered;
}

/**
 * Stores that the message went out, with the presenter's reference so any instance can update it (and a
 * re-run may resume it); handles a resolution that won the race against presenting.
 */
async function markPresented(asker: Asker, record: ApprovalRecord, platformRef: string | undefined, presenter: ApprovalPresenter): Promise<void> {
  const waiter = asker.waiters.get(record.id);
  if (waiter !== undefined && platformRef !== undefined) waiter.record = { ...waiter.record, platformRef };
  try {
    const shown: ApprovalRecord = { ...record, ...(platformRef === undefined ? {} : { platformRef }), presentedAt: asker.now() };
    // Without a TTL the record keeps the expiry it was stored with.
    if (await asker.store.compareAndSet('approvals', record.id, 'pending', shown)) return;
    if (platformRef === undefined) return;
    const current = await asker.store.get<ApprovalRecord>('approvals', record.id);
    // Resolved before its message existed: mark the message now, or it would stay open forever.
    if (current?.status === 'resolved' && current.platformRef === undefined) await presenter.resolved({ ...current, platformRef });
  } catch (error) {
    // The local copy still holds the reference, so this instance can update the message when it resolves.
    asker.logger.warn({ err: error, approvalId: record.id }, 'storing the approval message reference failed');
  }
}
