// The seam that tells every instance "approval X changed", so the one awaiting it re-reads the store.

export interface ApprovalBus {
  publish(approvalId: string): Promise<void>;
  /** Resolves once messages are delivered to `handler`; returns the unsubscribe. */
  subscribe(handler: (approvalId: string) => void): Promise<() => Promise<void>>;
}

/**
 * A bus inside one process. Runtimes sharing it behave as instances sharing a pub/sub channel;
 * createStoreApprovalBus carries the same messages across processes over the store (Redis pub/sub).
 */
export function createLocalApprovalBus(): ApprovalBus {
  const handlers = new Set<(approvalId: string) => void>();
  return {
    async publish(approvalId) {
      // Delivered on a later tick, as a network bus would, so a publisher never re-enters its own handler.
      await Promise.resolve();
      for (const handler of [...handlers]) handler(approvalId);
    },
    async subscribe(handler) {
      const subscription = (approvalId: string): void => handler(approvalId);
      handlers.add(subscription);
      return async () => void handlers.delete(subscription);
    },
  };
}
