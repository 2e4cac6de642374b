// The approval bus over the store's publish/subscribe: Redis pub/sub across instances, in-process otherwise.
import type { Store } from '../store/types.ts';
import type { ApprovalBus } from './approvalBus.ts';

export const APPROVAL_CHANNEL = 'approvals';

/** Approval ids are 16 URL-safe characters; anything else on the channel is not ours and is ignored. */
const APPROVAL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A message only says "approval X changed": the store is the record, and the waiter re-reads it. Redis pub/sub
 * is at most once, so the runtime's waiters also re-read their records every few seconds (`pollIntervalMs`);
 * on sqlite and memory the message reaches this store object's subscribers only, and that re-reading is what
 * carries an answer taken by another process on the same file.
 */
export function createStoreApprovalBus(store: Store, options: { channel?: string } = {}): ApprovalBus {
  const channel = options.channel ?? APPROVAL_CHANNEL;
  return {
    async publish(approvalId) {
      await store.publish(channel, approvalId);
    },
    async subscribe(handler) {
      return store.subscribe(channel, (message) => {
        if (APPROVAL_ID.test(message)) handler(message);
      });
    },
  };
}
