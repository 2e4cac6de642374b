import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newApprovalRecord } from '../../src/approvals/approvalRecord.ts';
import { ApprovalRuntime, NOT_ALLOWED_TEXT } from '../../src/approvals/approvals.ts';
import { createAuditLog, type AuditLog } from '../../src/approvals/audit.ts';
import type { ApprovalRecord, ApprovalRequestInput } from '../../src/approvals/types.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { isSettled, RecordingPresenter } from './recordingPresenter.ts';

const WORLD = 'slack:T1:C1';
const LONG = 60_000;

function question(overrides: Partial<ApprovalRequestInput> = {}): ApprovalRequestInput {
  return {
    worldId: WORLD,
    chatId: `${WORLD}/1700000000.0001`,
    requesterId: 'U-alice',
    title: 'Run code from skill pdf-tools?',
    body: 'Skill pdf-tools wants to run: scripts/extract.py "report.pdf"',
    timeoutMs: LONG,
    skillId: 'pdf-tools',
    skillHash: 'a'.repeat(64),
    items: [{ kind: 'script', path: 'scripts/extract.py', args: ['report.pdf'] }],
    ...overrides,
  };
}

describe('ApprovalRuntime', () => {
  let store: Store;
  let audit: AuditLog;
  let runtime: ApprovalRuntime;
  let slack: RecordingPresenter;
  let approvers: Record<string, string[]>;

  beforeEach(async () => {
    store = await createStore('memory://');
    audit = createAuditLog(store);
    approvers = {};
    runtime = new ApprovalRuntime({ store, audit, approversFor: (worldId) => approvers[worldId] ?? [] });
    slack = new RecordingPresenter();
    runtime.addPresenter('slack', slack);
  });

  afterEach(async () => {
    await runtime.close();
    await store.close();
  });

  async function asked(count: number): Promise<ApprovalRecord[]> {
    await vi.waitFor(() => expect(slack.presented).toHaveLength(count));
    return slack.presented;
  }

  it('presents the question, emits it, and keeps the platform reference on the stored record', async () => {
    const emitted: ApprovalRecord[] = [];
    runtime.on('hitl-option-request', (record) => emitted.push(record));
    const answer = runtime.request(question());
    const [shown] = await asked(1);
    expect(emitted.map((record) => record.id)).toEqual([shown?.id]);
    expect(shown?.options).toEqual(['yes_once', 'yes_in_session', 'no']);
    expect(shown?.defaultOption).toBe('no');
    expect(`hitl:${shown?.id}:yes_in_session`.length).toBeLessThanOrEqual(100);
    expect(shown?.id).toMatch(/^[A-Za-z0-9_-]+$/);
    await vi.waitFor(async () => expect((await store.get<ApprovalRecord>('approvals', shown!.id))?.platformRef).toBe('msg-1'));
    await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'yes_once', userId: 'U-alice' });
    expect((await answer).outcome).toBe('yes_once');
  });

  it('keeps approvals in two chats apart: answering one leaves the other pending', async () => {
    const first = runtime.request(question({ chatId: `${WORLD}/1` }));
    const second = runtime.request(question({ chatId: `${WORLD}/2` }));
    const [a, b] = await asked(2);
    const result = await runtime.respond({ worldId: WORLD, approvalId: a!.id, option: 'yes_once', userId: 'U-alice' });
    expect(result.kind).toBe('accepted');
    expect((await first).outcome).toBe('yes_once');
    expect(await isSettled(second)).toBe(false);
    expect((await store.get<ApprovalRecord>('approvals', b!.id))?.status).toBe('pending');
    await runtime.respond({ worldId: WORLD, approvalId: b!.id, option: 'no', userId: 'U-alice' });
    const decided = await second;
    expect(decided.outcome).toBe('no');
    expect(decided.chatId).toBe(`${WORLD}/2`);
  });

  it('accepts only one of two simultaneous responses', async () => {
    const answer = runtime.request(question());
    const [shown] = await asked(1);
    approvers[WORLD] = ['U-bob'];
    const results = await Promise.all([
      runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'yes_once', userId: 'U-alice' }),
      runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'no', userId: 'U-bob' }),
    ]);
    const kinds = results.map((result) => result.kind).sort();
    expect(kinds).toEqual(['accepted', 'already_resolved']);
    const winner = results.find((result) => result.kind === 'accepted');
    const record = await answer;
    expect(winner?.kind === 'accepted' && winner.record.outcome).toBe(record.outcome);
    expect(slack.resolvedRecords).toHaveLength(1);
    expect((await audit.list()).filter((entry) => entry.kind === 'approval')).toHaveLength(1);
    const late = await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'yes_once', userId: 'U-alice' });
    expect(late.kind).toBe('already_resolved');
  });

  it('tells a stranger privately and keeps the question open for the requester', async () => {
    const answer = runtime.request(question());
    const [shown] = await asked(1);
    const result = await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'yes_once', userId: 'U-mallory' });
    expect(result.kind).toBe('not_allowed');
    expect(slack.told).toEqual([{ approvalId: shown!.id, userId: 'U-mallory', text: NOT_ALLOWED_TEXT }]);
    expect(await isSettled(answer)).toBe(false);
    expect((await store.get<ApprovalRecord>('approvals', shown!.id))?.status).toBe('pending');
    expect((await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'no', userId: 'U-alice' })).kind).toBe('accepted');
    const record = await answer;
    expect(record.outcome).toBe('no');
    expect(record.decidedBy).toBe('U-alice');
  });

  it("lets one of the world's configured approvers answer", async () => {
    approvers[WORLD] = ['U-lead'];
    const answer = runtime.request(question());
    const [shown] = await asked(1);
    const result = await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'yes_in_session', userId: 'U-lead' });
    expect(result.kind).toBe('accepted');
    const record = await answer;
    expect(record.outcome).toBe('yes_in_session');
    expect(record.decidedBy).toBe('U-lead');
    expect(slack.resolvedRecords[0]?.platformRef).toBe('msg-1');
  });

  it('refuses a response from another world, an unknown option and an unknown id', async () => {
    const answer = runtime.request(question());
    const [shown] = await asked(1);
    const elsewhere = await runtime.respond({ worldId: 'slack:T1:C2', approvalId: shown!.id, option: 'yes_once', userId: 'U-alice' });
    expect(elsewhere.kind).toBe('wrong_world');
    const odd = await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'maybe', userId: 'U-alice' });
    expect(odd.kind).toBe('invalid_option');
    const unknown = await runtime.respond({ worldId: WORLD, approvalId: 'nope', option: 'no', userId: 'U-alice' });
    expect(unknown.kind).toBe('not_found');
    expect(await isSettled(answer)).toBe(false);
    await runtime.respond({ worldId: WORLD, approvalId: shown!.id, option: 'no', userId: 'U-alice' });
    expect((await answer).outcome).toBe('no');
  });

  it('answers an unanswered question with its default at the timeout', async () => {
    const resolvedEvents: ApprovalRecord[] = [];
    runtime.on('hitl-option-resolved', (record) => resolvedEvents.push(record));
    const record = await runtime.request(question({ timeoutMs: 50 }));
    expect(record.outcome).toBe('timeout');
    expect(record.option).toBe('no');
    expect(record.decidedBy).toBe('system:timeout');
    expect(slack.resolvedRecords.map((entry) => entry.outcome)).toEqual(['timeout']);
    expect(resolvedEvents.map((entry) => entry.id)).toEqual([record.id]);
    const late = await runtime.respond({ worldId: WORLD, approvalId: record.id, option: 'yes_once', userId: 'U-alice' });
    expect(late.kind).toBe('already_resolved');
  });

  it('answers with the default at once when no adapter can ask (pipe mode)', async () => {
    const record = await runtime.request(question({ worldId: 'terminal:local', chatId: 'terminal:local/s1', timeoutMs: LONG }));
    expect(record.outcome).toBe('no');
    expect(record.decidedBy).toBe('system:unattended');
    expect(slack.presented).toHaveLength(0);
    const [entry] = await audit.list({ worldId: 'terminal:local' });
    expect(entry?.outcome).toBe('no');
    expect(entry?.decidedBy).toBe('system:unattended');
  });

  it("times out, on any instance's sweep, a question its live instance left unresolved well past its deadline", async () => {
    const owner = new ApprovalRuntime({ store, audit, approversFor: () => [], instanceId: 'owner' });
    await owner.start();
    try {
      // The owner is alive but no longer awaits it (say its store write failed when its timer fired).
      const stuck = { ...newApprovalRecord(question(), Date.now() - 5 * LONG, 'owner'), platformRef: 'msg-9', presentedAt: Date.now() };
      await store.set('approvals', stuck.id, stuck, 10 * LONG);
      const fresh = { ...newApprovalRecord(question(), Date.now(), 'owner'), presentedAt: Date.now() };
      await store.set('approvals', fresh.id, fresh, 10 * LONG);
      expect(await runtime.expireStale()).toBe(1);
      expect(slack.resolvedRecords.map((entry) => [entry.id, entry.outcome, entry.decidedBy, entry.platformRef])).toEqual([
        [stuck.id, 'timeout', 'system:timeout', 'msg-9'],
      ]);
      expect((await store.get<ApprovalRecord>('approvals', fresh.id))?.status).toBe('pending');
    } finally {
      await owner.close();
    }
  });

  it('falls back to the default at once when the presenter fails', async () => {
    const broken = new RecordingPresenter({ failPresent: true });
    runtime.addPresenter('discord', broken);
    const record = await runtime.request(question({ worldId: 'discord:G1:C1', chatId: 'discord:G1:C1/T1', timeoutMs: LONG }));
    expect(record.outcome).toBe('no');
    expect(broken.presented).toHaveLength(1);
  });

  it('stops asking a platform once its presenter is removed', async () => {
    const discord = new RecordingPresenter();
    const remove = runtime.addPresenter('discord', discord);
    remove();
    const record = await runtime.request(question({ worldId: 'discord:G1:C1', chatId: 'discord:G1:C1/T1' }));
    expect(record.decidedBy).toBe('system:unattended');
    expect(discord.presented).toHaveLength(0);
  });

  it('resolves open questions as expired on close, and says so on their messages', async () => {
    const answer = runtime.request(question());
    await asked(1);
    await runtime.close();
    const record = await answer;
    expect(record.outcome).toBe('expired');
    expect(slack.resolvedRecords.map((entry) => entry.outcome)).toEqual(['expired']);
    await expect(runtime.request(question())).rejects.toThrow(/closed/);
  });
});
