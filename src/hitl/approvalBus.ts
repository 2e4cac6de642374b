// The seam that tells every instance "approval X was resolved", so the one awaiting it re-reads the store.

export interface ApprovalBus {
  publish(approvalId: string): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(handler: (approvalId: string) => void): () => void;
}

/**
 * A bus inside one process. Runtimes sharing it behave as instances sharing a pub/sub channel; a Redis bus
 * with the same interface carries this across processes.
 */
export function createLocalApprovalBus(): ApprovalBus {
  const handlers = new Set<(approvalId: string) => void>();
  return {
    async publish(approvalId) {
      // Delivered on a later tick, as a network bus would, so a publisher never re-enters its own handler.
      await Promise.resolve();
      for (const handler of [...handlers]) handler(approvalId);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
  };
}
