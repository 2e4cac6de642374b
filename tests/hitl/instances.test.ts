// Restarts and several instances: runtimes sharing one sqlite file (and Redis, when REDIS_URL is set).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLocalApprovalBus, type ApprovalBus } from '../../src/hitl/approvalBus.ts';
import { ApprovalRuntime } from '../../src/hitl/approvals.ts';
import { createAuditLog } from '../../src/hitl/audit.ts';
import type { ApprovalRecord, ApprovalRequestInput } from '../../src/hitl/types.ts';
import { createStore, type CreateStoreOptions } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { RecordingPresenter } from './recordingPresenter.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) throw new Error('CI=true needs REDIS_URL for the Redis approval tests');

const WORLD = 'discord:G1:C1';

function question(overrides: Partial<ApprovalRequestInput> = {}): ApprovalRequestInput {
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

interface Instance {
  store: Store;
  runtime: ApprovalRuntime;
  presenter: RecordingPresenter;
}

/** Two instances on one store location, each with its own connection, presenter and runtime. */
function instancesOn(storeUrl: () => string, storeOptions: () => CreateStoreOptions = () => ({})) {
  const open: Instance[] = [];
  async function start(options: { bus?: ApprovalBus; approvers?: string[]; presenter?: boolean } = {}): Promise<Instance> {
    const store = await createStore(storeUrl(), storeOptions());
    // Short retention: a shared Redis must not keep these test records for days.
    const runtime = new ApprovalRuntime({
      store,
      audit: createAuditLog(store, { ttlMs: 60_000 }),
      keepMs: 60_000,
      approversFor: () => options.approvers ?? [],
      ...(options.bus === undefined ? {} : { bus: options.bus }),
    });
    const presenter = new RecordingPresenter({ name: `instance${open.length + 1}` });
    if (options.presenter !== false) runtime.addPresenter('discord', presenter);
    const instance = { store, runtime, presenter };
    open.push(instance);
    return instance;
  }
  async function stopAll(): Promise<void> {
    for (const instance of open.splice(0)) {
      await instance.runtime.close();
      await instance.store.close();
    }
  }
  return { start, stopAll };
}

async function presentedOnce(presenter: RecordingPresenter): Promise<ApprovalRecord> {
  await vi.waitFor(() => expect(presenter.presented).toHaveLength(1));
  return presenter.presented[0]!;
}

describe('approvals across restarts and instances (sqlite)', () => {
  let dir: string;
  const instances = instancesOn(() => `sqlite://${path.join(dir, 'skillbot.sqlite')}`);

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-hitl-'));
  });

  afterEach(async () => {
    await instances.stopAll();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('after a restart, a question left pending resolves as expired, its message says so, and a click is too late', async () => {
    const before = await instances.start();
    void before.runtime.request(question());
    const shown = await presentedOnce(before.presenter);

    // The process "restarts": a new runtime on the same file, while the old one no longer answers for it.
    const after = await instances.start();
    expect(await after.runtime.expireStale()).toBe(1);
    expect(after.presenter.resolvedRecords).toHaveLength(1);
    const marked = after.presenter.resolvedRecords[0]!;
    expect(marked.id).toBe(shown.id);
    expect(marked.outcome).toBe('expired');
    expect(marked.platformRef).toBe('instance1-1');

    const click = await after.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
    expect(click.kind).toBe('already_resolved');
    expect(click.kind === 'already_resolved' && click.record.outcome).toBe('expired');
    const audit = await createAuditLog(after.store).list({ worldId: WORLD });
    expect(audit.map((entry) => [entry.outcome, entry.decidedBy])).toEqual([['expired', 'system:restart']]);
    expect(await after.runtime.expireStale()).toBe(0);
  });

  it('marks an expired question once its platform presenter is added after expireStale ran', async () => {
    const before = await instances.start();
    void before.runtime.request(question());
    const shown = await presentedOnce(before.presenter);
    const after = await instances.start({ presenter: false });
    expect(await after.runtime.expireStale()).toBe(1);
    const late = new RecordingPresenter();
    after.runtime.addPresenter('discord', late);
    await vi.waitFor(() => expect(late.resolvedRecords.map((record) => [record.id, record.outcome])).toEqual([[shown.id, 'expired']]));
  });

  it('of two instances racing to answer one question, exactly one is accepted', async () => {
    const bus = createLocalApprovalBus();
    const one = await instances.start({ bus, approvers: ['U-bob'] });
    const two = await instances.start({ bus, approvers: ['U-bob'] });
    const answer = one.runtime.request(question());
    const shown = await presentedOnce(one.presenter);
    const results = await Promise.all([
      one.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' }),
      two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'no', userId: 'U-bob' }),
    ]);
    expect(results.map((result) => result.kind).sort()).toEqual(['accepted', 'already_resolved']);
    const winner = results.find((result) => result.kind === 'accepted');
    const record = await answer;
    expect(winner?.kind === 'accepted' && winner.record.decidedBy).toBe(record.decidedBy);
    expect(one.presenter.resolvedRecords.length + two.presenter.resolvedRecords.length).toBe(1);
    const audit = await createAuditLog(one.store).list();
    expect(audit).toHaveLength(1);
  });

  it('a click handled by another instance resolves the waiting turn through the bus', async () => {
    const bus = createLocalApprovalBus();
    const one = await instances.start({ bus });
    const two = await instances.start({ bus });
    const answer = one.runtime.request(question());
    const shown = await presentedOnce(one.presenter);
    const result = await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_in_session', userId: 'U-alice' });
    expect(result.kind).toBe('accepted');
    const record = await answer;
    expect(record.outcome).toBe('yes_in_session');
    // The instance that took the click updates the message, using the reference the first one stored.
    expect(two.presenter.resolvedRecords.map((entry) => entry.platformRef)).toEqual(['instance1-1']);
  });

  it('without a shared bus, the waiting instance still learns the real answer rather than timing out', async () => {
    const one = await instances.start();
    const two = await instances.start();
    const answer = one.runtime.request(question({ timeoutMs: 300 }));
    const shown = await presentedOnce(one.presenter);
    await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
    expect((await answer).outcome).toBe('yes_once');
  });
});

describe.runIf(process.env.REDIS_URL)('approvals across instances (redis)', () => {
  // Both instances of a test share a key prefix no other run uses.
  let keyPrefix = '';
  const instances = instancesOn(
    () => process.env.REDIS_URL ?? '',
    () => ({ keyPrefix }),
  );

  beforeEach(() => {
    keyPrefix = `skillbot-test-hitl-${randomUUID()}:`;
  });

  afterEach(async () => {
    await instances.stopAll();
  });

  it('of two instances racing to answer one question, exactly one is accepted', async () => {
    const bus = createLocalApprovalBus();
    const one = await instances.start({ bus, approvers: ['U-bob'] });
    const two = await instances.start({ bus, approvers: ['U-bob'] });
    const answer = one.runtime.request(question());
    const shown = await presentedOnce(one.presenter);
    const results = await Promise.all([
      one.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' }),
      two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'no', userId: 'U-bob' }),
    ]);
    expect(results.map((result) => result.kind).sort()).toEqual(['accepted', 'already_resolved']);
    const winner = results.find((result) => result.kind === 'accepted');
    expect(winner?.kind === 'accepted' && winner.record.outcome).toBe((await answer).outcome);
  });
});
