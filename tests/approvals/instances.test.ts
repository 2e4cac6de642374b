// Restarts and several instances on one sqlite file (one host); tests/approvals/scaleOut.test.ts covers Redis too.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLocalApprovalBus } from '../../src/approvals/approvalBus.ts';
import { createAuditLog } from '../../src/approvals/audit.ts';
import { isInstanceAlive } from '../../src/chats/instanceLiveness.ts';
import { RecordingPresenter } from './recordingPresenter.ts';
import { instancesOn, presentedOnce, question, WORLD } from './runtimeInstances.ts';

/** Short enough for a test to see an instance's liveness lapse, long enough for a busy machine's heartbeat. */
const SHORT_LIVED = { instanceTtlMs: 400, heartbeatMs: 100 };

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

  it('after a crash and a restart (new instance id), the old question expires once the old liveness lapses; its message says so and a click is too late', async () => {
    const before = await instances.start({ started: true, runtime: SHORT_LIVED });
    void before.runtime.request(question());
    const shown = await presentedOnce(before.presenter);
    await before.crash();

    const after = await instances.start({ started: true, runtime: { sweepIntervalMs: 100 } });
    expect(after.runtime.instanceId).not.toBe(before.runtime.instanceId);
    await vi.waitFor(() => expect(after.presenter.resolvedRecords).toHaveLength(1), { timeout: 5_000 });
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

  it('a graceful close resolves its open questions as expired and removes its liveness record at once', async () => {
    const before = await instances.start({ started: true });
    const answer = before.runtime.request(question());
    await presentedOnce(before.presenter);
    expect(await isInstanceAlive(before.store, before.runtime.instanceId)).toBe(true);
    await before.runtime.close();
    expect((await answer).decidedBy).toBe('system:shutdown');
    const after = await instances.start();
    expect(await isInstanceAlive(after.store, before.runtime.instanceId)).toBe(false);
    expect(await after.runtime.start()).toBe(0);
  });

  it('marks an expired question once its platform presenter is added after the sweep ran', async () => {
    const before = await instances.start({ started: true, runtime: SHORT_LIVED });
    void before.runtime.request(question());
    const shown = await presentedOnce(before.presenter);
    await before.crash();
    const after = await instances.start({ presenter: false });
    let expired = 0;
    await vi.waitFor(async () => expect((expired += await after.runtime.expireStale())).toBe(1), { timeout: 5_000 });
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
    const one = await instances.start({ bus, runtime: { pollIntervalMs: 60_000 } });
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

  it('two processes on one file hear no pub/sub from each other: the waiter learns the answer by re-reading the store', async () => {
    const one = await instances.start({ bus: 'store', started: true, runtime: { pollIntervalMs: 100 } });
    const two = await instances.start({ bus: 'store', started: true });
    const answer = one.runtime.request(question({ timeoutMs: 60_000 }));
    const shown = await presentedOnce(one.presenter);
    await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
    expect((await answer).outcome).toBe('yes_once');
  });

  it('without a shared bus or a poll in time, the waiting instance still learns the real answer at its deadline', async () => {
    const one = await instances.start({ runtime: { pollIntervalMs: 60_000 } });
    const two = await instances.start();
    const answer = one.runtime.request(question({ timeoutMs: 300 }));
    const shown = await presentedOnce(one.presenter);
    await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
    expect((await answer).outcome).toBe('yes_once');
  });
});
