// Several ApprovalRuntimes ("instances") on one store location, each with its own store connection and presenter.
import { vi, expect } from 'vitest';
import type { ApprovalBus } from '../../src/approvals/approvalBus.ts';
import { ApprovalRuntime, type ApprovalRuntimeOptions } from '../../src/approvals/approvals.ts';
import { createAuditLog } from '../../src/approvals/audit.ts';
import { createRecordSealer } from '../../src/approvals/recordSeal.ts';
import { createStoreApprovalBus } from '../../src/approvals/storeApprovalBus.ts';
import type { ApprovalRecord, ApprovalRequestInput } from '../../src/approvals/types.ts';
import { createStore, type CreateStoreOptions } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { RecordingPresenter } from './recordingPresenter.ts';

export const WORLD = 'discord:G1:C1';

export function question(overrides: Partial<ApprovalRequestInput> = {}): ApprovalRequestInput {
  return {
    worldId: WORLD,
    chatId: `${WORLD}/T1`,
    requesterId: 'U-alice',
    title: 'Run code from skill pdf-tools?',
    body: 'Skill pdf-tools wants to run: scripts/extract.py',
    timeoutMs: 60_000,
    skillId: 'pdf-tools',
    skillHash: 'b'.repeat(64),
    items: [{ kind: 'script', path: 'scripts/extract.py', args: [] }],
    ...overrides,
  };
}

export interface Instance {
  store: Store;
  runtime: ApprovalRuntime;
  presenter: RecordingPresenter;
  /** The process dies: its store connection is gone, so it writes nothing more (no heartbeat, no resolution). */
  crash(): Promise<void>;
}

export interface StartOptions {
  /** A bus object shared in this process, or 'store' for createStoreApprovalBus on the instance's own store. */
  bus?: ApprovalBus | 'store';
  approvers?: string[];
  /** false: no presenter for the platform (the adapters have not started yet); `failResolved`: its updates fail. */
  presenter?: boolean | 'failResolved';
  /** Call runtime.start() (liveness, first sweep, sweeper). */
  started?: boolean;
  runtime?: Partial<ApprovalRuntimeOptions>;
}

const sharedSealer = createRecordSealer(Buffer.alloc(32, 9));

export function instancesOn(storeUrl: () => string, storeOptions: () => CreateStoreOptions = () => ({})) {
  const open: Instance[] = [];
  async function start(options: StartOptions = {}): Promise<Instance> {
    const store = await createStore(storeUrl(), storeOptions());
    const bus = options.bus === 'store' ? createStoreApprovalBus(store) : options.bus;
    // Short retention: a shared Redis must not keep these test records for days.
    const runtime = new ApprovalRuntime({
      store,
      audit: createAuditLog(store, { ttlMs: 60_000 }),
      keepMs: 60_000,
      approversFor: () => options.approvers ?? [],
      // Instances on one store share the state key (SKILLBOT_STATE_KEY), as doctor requires of a deployment.
      sealer: sharedSealer,
      ...(bus === undefined ? {} : { bus }),
      ...options.runtime,
    });
    const presenter = new RecordingPresenter({ name: `instance${open.length + 1}`, failResolved: options.presenter === 'failResolved' });
    if (options.presenter !== false) runtime.addPresenter('discord', presenter);
    const instance: Instance = { store, runtime, presenter, crash: async () => store.close() };
    open.push(instance);
    if (options.started === true) await runtime.start();
    return instance;
  }
  async function stopAll(): Promise<void> {
    for (const instance of open.splice(0)) {
      // A crashed instance's close only clears its timers: its store refuses every write.
      await instance.runtime.close();
      await instance.store.close();
    }
  }
  return { start, stopAll };
}

export async function presentedOnce(presenter: RecordingPresenter): Promise<ApprovalRecord> {
  await vi.waitFor(() => expect(presenter.presented).toHaveLength(1));
  return presenter.presented[0]!;
}
