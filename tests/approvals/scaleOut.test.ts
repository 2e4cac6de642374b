// Several instances behind one app: liveness, the sweeper, hand over and resume, on sqlite and on a shared Redis.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isInstanceAlive } from '../../src/chats/instanceLiveness.ts';
import type { ApprovalRecord } from '../../src/approvals/types.ts';
import type { CreateStoreOptions } from '../../src/store/createStore.ts';
import { isSettled } from './recordingPresenter.ts';
import { instancesOn, presentedOnce, question, WORLD } from './runtimeInstances.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) throw new Error('CI=true needs REDIS_URL for the Redis approval tests');

/** Lapses within a test, yet leaves a busy machine's heartbeat a wide margin. */
const HANDS_OVER = { instanceTtlMs: 1_500, heartbeatMs: 300 };
const SWEEPS_OFTEN = { sweepIntervalMs: 100, pollIntervalMs: 100 };

interface Location {
  url: () => string;
  options?: () => CreateStoreOptions;
  before: () => Promise<void>;
  after: () => Promise<void>;
}

function describeScaleOut(name: string, location: Location): void {
  describe(`approvals across instances (${name})`, () => {
    const instances = instancesOn(location.url, location.options);
    beforeEach(location.before);
    afterEach(async () => {
      await instances.stopAll();
      await location.after();
    });

    async function storedRecord(id: string): Promise<ApprovalRecord | undefined> {
      const reader = await instances.start({ presenter: false });
      return reader.store.get<ApprovalRecord>('approvals', id);
    }

    it('an instance that starts while another is alive leaves its open questions alone', async () => {
      const one = await instances.start({ bus: 'store', started: true });
      const answer = one.runtime.request(question());
      const shown = await presentedOnce(one.presenter);
      const two = await instances.start({ bus: 'store', started: true, runtime: SWEEPS_OFTEN });
      expect(await two.runtime.expireStale()).toBe(0);
      await sleep(500); // a few sweeps of instance two
      expect(two.presenter.resolvedRecords).toEqual([]);
      expect(await isSettled(answer)).toBe(false);
      expect((await storedRecord(shown.id))?.status).toBe('pending');
      await one.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'no', userId: 'U-alice' });
      expect((await answer).outcome).toBe('no');
    });

    it("after an instance hands over and its liveness lapses, another's sweeper expires its question and the message says so", async () => {
      const one = await instances.start({ bus: 'store', started: true, runtime: HANDS_OVER });
      const answer = one.runtime.request(question());
      const shown = await presentedOnce(one.presenter);
      const two = await instances.start({ bus: 'store', started: true, runtime: SWEEPS_OFTEN });
      await one.runtime.close({ handOver: true });
      const local = await answer;
      expect([local.outcome, local.decidedBy]).toEqual(['expired', 'system:handover']);
      expect((await storedRecord(shown.id))?.status).toBe('pending');

      await vi.waitFor(() => expect(two.presenter.resolvedRecords).toHaveLength(1), { timeout: 8_000 });
      const marked = two.presenter.resolvedRecords[0]!;
      expect([marked.id, marked.outcome, marked.decidedBy, marked.platformRef]).toEqual([shown.id, 'expired', 'system:restart', 'instance1-1']);
      expect(one.presenter.resolvedRecords).toEqual([]);
      const click = await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
      expect(click.kind).toBe('already_resolved');
    }, 15_000);

    it('the asking instance marks the question answered when the instance that took the click died before the platform took its update', async () => {
      const one = await instances.start({ bus: 'store', started: true, runtime: { ...SWEEPS_OFTEN, ...HANDS_OVER } });
      const answer = one.runtime.request(question());
      const shown = await presentedOnce(one.presenter);
      // The click lands on an instance whose update of the message never reaches the platform, and which then dies
      // (killed in a 429's wait).
      const two = await instances.start({ bus: 'store', started: true, presenter: 'failResolved', runtime: HANDS_OVER });
      expect((await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' })).kind).toBe('accepted');
      expect(two.presenter.resolvedRecords).toHaveLength(1);
      await two.crash();
      expect((await answer).outcome).toBe('yes_once');
      await vi.waitFor(() => expect(one.presenter.resolvedRecords.map((record) => [record.id, record.outcome, record.platformRef])).toEqual([[shown.id, 'yes_once', 'instance1-1']]), {
        timeout: 8_000,
      });
    }, 15_000);

    it('the asking instance leaves the question to a live instance that took the click', async () => {
      const one = await instances.start({ bus: 'store', started: true, runtime: { ...SWEEPS_OFTEN, ...HANDS_OVER } });
      const answer = one.runtime.request(question());
      const shown = await presentedOnce(one.presenter);
      const two = await instances.start({ bus: 'store', started: true, runtime: HANDS_OVER });
      await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'no', userId: 'U-alice' });
      expect((await answer).outcome).toBe('no');
      // Past the grace the asker gives the decider (twice the liveness TTL): still marked once, by the decider.
      await sleep(3_500);
      expect(two.presenter.resolvedRecords).toHaveLength(1);
      expect(one.presenter.resolvedRecords).toEqual([]);
    }, 15_000);

    it('a re-run on another instance resumes the question by resumeKey: the click on the original message counts', async () => {
      const asked = question({ resumeKey: `${WORLD}/T1/msg-1/1` });
      const one = await instances.start({ bus: 'store', started: true, runtime: HANDS_OVER });
      const first = one.runtime.request(asked);
      const shown = await presentedOnce(one.presenter);
      await one.runtime.close({ handOver: true });
      expect((await first).decidedBy).toBe('system:handover');

      const two = await instances.start({ bus: 'store', started: true, runtime: SWEEPS_OFTEN });
      const second = two.runtime.request(asked);
      // The question became instance two's: once instance one's liveness lapsed, no sweeper takes it for an orphan.
      await vi.waitFor(async () => expect(await isInstanceAlive(two.store, one.runtime.instanceId)).toBe(false), { timeout: 8_000 });
      await sleep(300);
      expect(await isSettled(second)).toBe(false);
      expect(two.presenter.presented).toEqual([]);

      const three = await instances.start({ bus: 'store', started: true });
      const click = await three.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
      expect(click.kind).toBe('accepted');
      const record = await second;
      expect([record.id, record.outcome, record.decidedBy]).toEqual([shown.id, 'yes_once', 'U-alice']);
      expect(three.presenter.resolvedRecords.map((entry) => entry.platformRef)).toEqual(['instance1-1']);
    }, 15_000);

    it('a re-run gets an answered question as it stands, and asks anew when the question differs or had only expired', async () => {
      const resumeKey = `${WORLD}/T1/msg-2/1`;
      const one = await instances.start({ bus: 'store', started: true, runtime: SWEEPS_OFTEN });
      const two = await instances.start({ bus: 'store', started: true, runtime: SWEEPS_OFTEN });
      const first = one.runtime.request(question({ resumeKey }));
      const shown = await presentedOnce(one.presenter);
      await two.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_once', userId: 'U-alice' });
      expect((await first).outcome).toBe('yes_once');

      const again = await two.runtime.request(question({ resumeKey }));
      expect([again.id, again.outcome]).toEqual([shown.id, 'yes_once']);
      expect(two.presenter.presented).toEqual([]);

      // Other arguments: the earlier yes does not cover them.
      const other = two.runtime.request(question({ resumeKey, items: [{ kind: 'script', path: 'scripts/extract.py', args: ['--all'] }] }));
      const reasked = await presentedOnce(two.presenter);
      expect(reasked.id).not.toBe(shown.id);
      await two.runtime.respond({ worldId: WORLD, approvalId: reasked.id, option: 'no', userId: 'U-alice' });
      expect((await other).outcome).toBe('no');

      // A question that only expired (its instance shut down) was never answered: ask again.
      const expiringKey = `${WORLD}/T1/msg-3/1`;
      const three = await instances.start({ bus: 'store', started: true });
      const doomed = three.runtime.request(question({ resumeKey: expiringKey }));
      await presentedOnce(three.presenter);
      await three.runtime.close();
      expect((await doomed).outcome).toBe('expired');
      void one.runtime.request(question({ resumeKey: expiringKey }));
      await vi.waitFor(() => expect(one.presenter.presented).toHaveLength(2));
    });
  });
}

describeScaleOut('sqlite', (() => {
  let dir = '';
  return {
    url: () => `sqlite://${path.join(dir, 'skillbot.sqlite')}`,
    before: async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-scale-'));
    },
    after: async () => fs.rm(dir, { recursive: true, force: true }),
  };
})());

describe.runIf(process.env.REDIS_URL)('on a shared Redis', () => {
  let keyPrefix = '';
  describeScaleOut('redis', {
    url: () => process.env.REDIS_URL ?? '',
    options: () => ({ keyPrefix }),
    before: async () => {
      // The instances of one test share a key prefix no other run uses; records carry short TTLs.
      keyPrefix = `skillbot-test-hitl-${randomUUID()}:`;
    },
    after: async () => undefined,
  });

  describe('pub/sub between instances', () => {
    const instances = instancesOn(
      () => process.env.REDIS_URL ?? '',
      () => ({ keyPrefix }),
    );
    beforeEach(() => {
      keyPrefix = `skillbot-test-hitl-${randomUUID()}:`;
    });
    afterEach(async () => instances.stopAll());

    it('a click taken by instance B resolves the request awaited on instance A at once, through Redis pub/sub', async () => {
      // Neither the poll (60 s) nor the deadline (60 s) can deliver it within the test's 5 s.
      const slow = { pollIntervalMs: 60_000 };
      const a = await instances.start({ bus: 'store', started: true, runtime: slow });
      const b = await instances.start({ bus: 'store', started: true, runtime: slow });
      const answer = a.runtime.request(question({ timeoutMs: 60_000 }));
      const shown = await presentedOnce(a.presenter);
      const result = await b.runtime.respond({ worldId: WORLD, approvalId: shown.id, option: 'yes_in_session', userId: 'U-alice' });
      expect(result.kind).toBe('accepted');
      const record = await answer;
      expect([record.outcome, record.decidedBy]).toEqual(['yes_in_session', 'U-alice']);
      expect(b.presenter.resolvedRecords.map((entry) => entry.platformRef)).toEqual(['instance1-1']);
    });

    it('of two instances racing to answer one question, exactly one is accepted', async () => {
      const one = await instances.start({ bus: 'store', approvers: ['U-bob'], started: true });
      const two = await instances.start({ bus: 'store', approvers: ['U-bob'], started: true });
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
});
