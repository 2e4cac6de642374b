import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApprovalRuntime } from '../../src/approvals/approvals.ts';
import { createAuditLog, type AuditLog } from '../../src/approvals/audit.ts';
import { authorize, formatApprovalBody, notRunSentence, type AuthorizeInput } from '../../src/approvals/gate.ts';
import { createGrants, grantKey, type Grants } from '../../src/approvals/grants.ts';
import type { ApprovalOption } from '../../src/approvals/types.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { RecordingPresenter } from './recordingPresenter.ts';

const WORLD = 'slack:T1:C1';
const CHAT = `${WORLD}/1700000000.0001`;
const HASH = '3f2a9c1b7d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff';

function runOf(overrides: Partial<AuthorizeInput> = {}): AuthorizeInput {
  return {
    worldId: WORLD,
    chatId: CHAT,
    requesterId: 'U-alice',
    skill: { id: 'pdf-tools', hash: HASH },
    items: [{ kind: 'script', path: 'scripts/extract.py', args: ['report.pdf', '--pages', '1-3'] }],
    timeoutMs: 60_000,
    turnId: 'turn-1',
    ...overrides,
  };
}

describe('authorize: may this skill code run now?', () => {
  let store: Store;
  let audit: AuditLog;
  let grants: Grants;
  let approvals: ApprovalRuntime;
  let slack: RecordingPresenter;

  beforeEach(async () => {
    store = await createStore('memory://');
    audit = createAuditLog(store);
    grants = createGrants(store);
    approvals = new ApprovalRuntime({ store, audit, approversFor: () => [] });
    slack = new RecordingPresenter();
    approvals.addPresenter('slack', slack);
  });

  afterEach(async () => {
    await approvals.close();
    await store.close();
  });

  /** Starts an authorization and answers its question (the nth shown) with `option` as the requester. */
  async function authorizeAnswering(option: ApprovalOption, input: AuthorizeInput = runOf()) {
    const shownBefore = slack.presented.length;
    const decision = authorize({ approvals, grants, audit }, input);
    await vi.waitFor(() => expect(slack.presented.length).toBe(shownBefore + 1));
    const shown = slack.presented[shownBefore]!;
    await approvals.respond({ worldId: input.worldId, approvalId: shown.id, option, userId: input.requesterId });
    return decision;
  }

  it('asks with yes_once / yes_in_session / no, showing the skill, each script with its args and a short hash', async () => {
    const decision = await authorizeAnswering('yes_once');
    expect(decision).toMatchObject({ allowed: true, outcome: 'yes_once', decidedBy: 'U-alice' });
    const [shown] = slack.presented;
    expect(shown?.options).toEqual(['yes_once', 'yes_in_session', 'no']);
    expect(shown?.defaultOption).toBe('no');
    expect(shown?.body).toContain('pdf-tools');
    expect(shown?.body).toContain('"scripts/extract.py" "report.pdf" "--pages" "1-3"');
    expect(shown?.body).toContain(HASH.slice(0, 12));
    expect(shown?.body).not.toContain(HASH);
  });

  it("on a routine's run, only the owner's yes_in_session makes a grant, and it is the routine's, not the thread's", async () => {
    approvals = new ApprovalRuntime({ store, audit, approversFor: () => ['U-approver'] });
    approvals.addPresenter('slack', slack);
    const run = runOf({ routineId: 'r-0000abcd' });
    const decision = authorize({ approvals, grants, audit }, run);
    await vi.waitFor(() => expect(slack.presented).toHaveLength(1));
    expect(slack.presented[0]?.routineId).toBe('r-0000abcd');
    expect(slack.presented[0]?.body).toContain('"Yes, for this routine" covers runs of pdf-tools');
    await approvals.respond({ worldId: WORLD, approvalId: slack.presented[0]!.id, option: 'yes_in_session', userId: 'U-approver' });
    expect(await decision).toMatchObject({ allowed: true, outcome: 'yes_in_session', decidedBy: 'U-approver' });
    expect(await grants.list()).toEqual([]);
    // The owner's answer is kept for every run of the routine, whatever its thread.
    await authorizeAnswering('yes_in_session', run);
    expect(await grants.has(grantKey(WORLD, 'routine:r-0000abcd', 'pdf-tools', HASH, 'U-alice'))).toBe(true);
    expect(await grants.has(grantKey(WORLD, CHAT, 'pdf-tools', HASH, 'U-alice'))).toBe(false);
    expect(await authorize({ approvals, grants, audit }, { ...run, chatId: `${WORLD}/1700000999.0001` })).toMatchObject({ allowed: true, outcome: 'granted' });
    expect(slack.presented).toHaveLength(2);
  });

  it('yes_once allows this run only: the next run asks again', async () => {
    await authorizeAnswering('yes_once');
    await authorizeAnswering('no');
    expect(slack.presented).toHaveLength(2);
  });

  it('yes_in_session stores a grant: the same code runs without asking, edited code asks again', async () => {
    const first = await authorizeAnswering('yes_in_session');
    expect(first).toMatchObject({ allowed: true, outcome: 'yes_in_session' });
    expect(await grants.has(grantKey(WORLD, CHAT, 'pdf-tools', HASH, 'U-alice'))).toBe(true);

    const again = await authorize({ approvals, grants, audit }, runOf());
    expect(again).toEqual({ allowed: true, outcome: 'granted', skillHash: HASH, decidedBy: 'U-alice' });
    expect(slack.presented).toHaveLength(1);

    const edited = await authorizeAnswering('no', runOf({ skill: { id: 'pdf-tools', hash: 'c'.repeat(64) } }));
    expect(edited.allowed).toBe(false);
    expect(slack.presented).toHaveLength(2);

    const otherChat = await authorizeAnswering('no', runOf({ chatId: `${WORLD}/1700000000.0002` }));
    expect(otherChat.allowed).toBe(false);
    expect(slack.presented).toHaveLength(3);
  });

  it('a re-run of the turn with the same resumeKey awaits the question still open instead of asking again', async () => {
    const first = authorize({ approvals, grants, audit }, runOf({ resumeKey: 'turn-1/approval-1' }));
    await vi.waitFor(() => expect(slack.presented).toHaveLength(1));
    // The turn runs again (its instance went away) while the question is open: it awaits the same question.
    const rerun = authorize({ approvals, grants, audit }, runOf({ resumeKey: 'turn-1/approval-1' }));
    await approvals.respond({ worldId: WORLD, approvalId: slack.presented[0]!.id, option: 'no', userId: 'U-alice' });
    expect(await first).toMatchObject({ allowed: false, outcome: 'no' });
    expect(await rerun).toMatchObject({ allowed: false, outcome: 'no', approvalId: slack.presented[0]!.id });
    expect(slack.presented).toHaveLength(1);
  });

  it('never resumes a "yes, once" whose run started: a re-run asks again and the card says why (issue 27, F2)', async () => {
    const first = await authorizeAnswering('yes_once', runOf({ resumeKey: 'turn-1/approval-1' }));
    expect(first).toMatchObject({ allowed: true, outcome: 'yes_once' });
    // The run started (the gate marked it before letting it run), then the bot died: the turn runs again.
    const rerun = await authorizeAnswering('no', runOf({ resumeKey: 'turn-1/approval-1' }));
    expect(rerun).toMatchObject({ allowed: false, outcome: 'no' });
    expect(rerun.approvalId).not.toBe(first.approvalId);
    expect(slack.presented).toHaveLength(2);
    expect(slack.presented[1]?.body).toMatch(/^Asked again: the bot stopped \(a restart or a crash\) while the run you approved with "Yes, once" was under way/);
    expect(slack.presented[0]?.body).not.toMatch(/Asked again/);
  });

  it('no, a timeout and pipe mode never run the code, and the model is told plainly', async () => {
    const declined = await authorizeAnswering('no');
    expect(declined).toMatchObject({ allowed: false, outcome: 'no', decidedBy: 'U-alice' });

    const late = await authorize({ approvals, grants, audit }, runOf({ timeoutMs: 50 }));
    expect(late).toMatchObject({ allowed: false, outcome: 'timeout' });

    const unattended = await authorize({ approvals, grants, audit }, runOf({ worldId: 'terminal:local', chatId: 'terminal:local/s1' }));
    expect(unattended).toMatchObject({ allowed: false, outcome: 'no', decidedBy: 'system:unattended' });
    expect(await grants.list()).toEqual([]);
  });

  it('writes an audit record for every decision, asked or granted', async () => {
    await authorizeAnswering('yes_in_session');
    await authorize({ approvals, grants, audit }, runOf());
    const entries = await audit.list({ worldId: WORLD, chatId: CHAT });
    expect(entries.map((entry) => [entry.kind, entry.outcome, entry.requestedBy, entry.decidedBy])).toEqual([
      ['approval', 'yes_in_session', 'U-alice', 'U-alice'],
      ['approval', 'granted', 'U-alice', 'U-alice'],
    ]);
    expect(entries[0]?.items).toEqual(runOf().items);
    expect(entries[0]?.skillHash).toBe(HASH);
    expect(entries[0]?.approvalId).toBe(slack.presented[0]?.id);
    expect(entries[0]?.turnId).toBe('turn-1');
  });

  it('revokes grants by chat, by skill, or all', async () => {
    const chatA = `${WORLD}/A`;
    const chatB = `${WORLD}/B`;
    await grants.add(grantKey(WORLD, chatA, 'pdf-tools', HASH, 'U-alice'), 'U-alice');
    await grants.add(grantKey(WORLD, chatA, 'csv-tools', HASH, 'U-alice'), 'U-alice');
    await grants.add(grantKey(WORLD, chatB, 'pdf-tools', HASH, 'U-alice'), 'U-alice');
    await grants.add(grantKey('discord:G:C', 'discord:G:C/T', 'pdf-tools', HASH, 'U-bob'), 'U-bob');
    expect(await grants.list({ worldId: WORLD })).toHaveLength(3);
    expect(await grants.list({ chatId: chatA })).toHaveLength(2);

    expect(await grants.revoke({ chatId: chatA, skillId: 'csv-tools' })).toBe(1);
    expect(await grants.revoke({ chatId: chatA })).toBe(1);
    expect(await grants.has(grantKey(WORLD, chatA, 'pdf-tools', HASH, 'U-alice'))).toBe(false);
    expect(await grants.revoke({ skillId: 'pdf-tools' })).toBe(2);
    await grants.add(grantKey(WORLD, chatB, 'pdf-tools', HASH, 'U-alice'), 'U-alice');
    expect(await grants.revoke({ all: true })).toBe(1);
    expect(await grants.list()).toEqual([]);

    // A revoked grant means the next run asks again.
    await authorizeAnswering('no', runOf({ chatId: chatB }));
    expect(slack.presented).toHaveLength(1);
  });

  it('a session grant covers its requester only: another person in the thread is asked again', async () => {
    const first = await authorizeAnswering('yes_in_session');
    expect(first).toMatchObject({ allowed: true, skillHash: HASH });
    expect(slack.presented[0]?.body).toContain(
      `"Yes, for this thread" covers runs of pdf-tools at this version (content ${HASH.slice(0, 12)}) asked by U-alice, in this thread only, until 24 hours after the answer.`,
    );
    expect(await authorize({ approvals, grants, audit }, runOf())).toMatchObject({ allowed: true, outcome: 'granted' });
    const bob = await authorizeAnswering('no', runOf({ requesterId: 'U-bob' }));
    expect(bob).toMatchObject({ allowed: false, outcome: 'no' });
    expect(slack.presented).toHaveLength(2);
    expect(slack.presented[1]?.requesterId).toBe('U-bob');
  });

  it('ignores a grant row written straight into the store (no valid MAC), and audits it', async () => {
    const key = grantKey(WORLD, CHAT, 'pdf-tools', HASH, 'U-alice');
    // What a skill with network access could write into Redis, or a script into the SQLite file.
    const forged = { worldId: WORLD, chatId: CHAT, skillId: 'pdf-tools', skillHash: HASH, requesterId: 'U-alice', grantedBy: 'U-admin', grantedAt: Date.now(), expiresAt: Date.now() + 3_600_000, mac: 'f'.repeat(64) };
    await store.set('grants', key.id, forged, 3_600_000);
    const rejected: string[] = [];
    const checked = createGrants(store, {
      async onRejected(rejectedKey) {
        rejected.push(rejectedKey.id);
        await audit.record({ at: Date.now(), kind: 'integrity', worldId: WORLD, chatId: CHAT, skillId: 'pdf-tools', skillHash: HASH, items: [], outcome: 'ignored' });
      },
    });
    const decision = authorize({ approvals, grants: checked, audit }, runOf());
    await vi.waitFor(() => expect(slack.presented).toHaveLength(1));
    await approvals.respond({ worldId: WORLD, approvalId: slack.presented[0]!.id, option: 'no', userId: 'U-alice' });
    expect(await decision).toMatchObject({ allowed: false, outcome: 'no' });
    expect(rejected).toEqual([key.id]);
    expect(await checked.list()).toEqual([]);
    expect((await audit.list()).map((entry) => entry.kind)).toContain('integrity');
  });

  it('ignores a "yes" written straight into the store for an open question, and audits it', async () => {
    const decision = authorize({ approvals, grants, audit }, runOf());
    await vi.waitFor(() => expect(slack.presented).toHaveLength(1));
    const open = slack.presented[0]!;
    const stored = await store.get<Record<string, unknown>>('approvals', open.id);
    const forged = { ...stored, status: 'resolved', outcome: 'yes_once', option: 'yes_once', decidedBy: 'U-alice', decidedAt: Date.now(), mac: '0'.repeat(64) };
    await store.set('approvals', open.id, forged, 60_000);
    await approvals.respond({ worldId: WORLD, approvalId: open.id, option: 'yes_once', userId: 'U-alice' });
    const result = await decision;
    expect(result).toMatchObject({ allowed: false, decidedBy: 'system:integrity' });
    if (!result.allowed) expect(notRunSentence(result.outcome, result.decidedBy)).toContain('failed the integrity check');
    const entries = await audit.list({ worldId: WORLD, chatId: CHAT });
    expect(entries.find((entry) => entry.kind === 'integrity')).toMatchObject({ approvalId: open.id, outcome: 'ignored' });
  });

  it('refuses an open question whose requester was changed in the store: the new "requester" cannot answer it', async () => {
    const decision = authorize({ approvals, grants, audit }, runOf());
    await vi.waitFor(() => expect(slack.presented).toHaveLength(1));
    const open = slack.presented[0]!;
    // What a skill reaching Redis could do: make a stranger the one who asked, so that stranger may answer.
    const stored = await store.get<Record<string, unknown>>('approvals', open.id);
    await store.set('approvals', open.id, { ...stored, requesterId: 'U-mallory' }, 60_000);
    const answer = await approvals.respond({ worldId: WORLD, approvalId: open.id, option: 'yes_in_session', userId: 'U-mallory' });
    expect(answer.kind).not.toBe('accepted');
    const result = await decision;
    expect(result).toMatchObject({ allowed: false, decidedBy: 'system:integrity' });
    expect(await grants.list()).toEqual([]);
  });

  it('refuses an open question whose items were changed in the store, even answered by its requester', async () => {
    const decision = authorize({ approvals, grants, audit }, runOf());
    await vi.waitFor(() => expect(slack.presented).toHaveLength(1));
    const open = slack.presented[0]!;
    const stored = await store.get<Record<string, unknown>>('approvals', open.id);
    const items = [{ kind: 'script', path: 'scripts/extract.py', args: ['--drop-everything'] }];
    await store.set('approvals', open.id, { ...stored, items }, 60_000);
    const answer = await approvals.respond({ worldId: WORLD, approvalId: open.id, option: 'yes_once', userId: 'U-alice' });
    expect(answer.kind).not.toBe('accepted');
    expect(await decision).toMatchObject({ allowed: false, decidedBy: 'system:integrity' });
  });

  it('forgets a grant after its TTL', async () => {
    const shortLived = createGrants(store, { ttlMs: 50 });
    const key = grantKey(WORLD, CHAT, 'pdf-tools', HASH, 'U-alice');
    await shortLived.add(key, 'U-alice');
    expect(await shortLived.has(key)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await shortLived.has(key)).toBe(false);
  });
});

describe('what people and the model read', () => {
  it('quotes arguments so spaces and quotes are visible, and names every invisible or formatting character', () => {
    const body = formatApprovalBody({ id: 'notes', hash: HASH }, [
      { kind: 'script', path: 'scripts/save.sh', args: ['two words', 'say "hi"', 'line\nbreak', 'evil\u202Etxt.exe', '--dry\u200B-run', 'a\u2060b\u061Cc\u00ADd\u2028e'] },
      { kind: 'hook', path: 'scripts/after.sh', args: [] },
    ]);
    expect(body).toBe(
      [
        `Skill notes (content ${HASH.slice(0, 12)}) wants to run:`,
        '• script "scripts/save.sh" "two words" "say \\"hi\\"" "line<U+000A>break" "evil<U+202E>txt.exe" "--dry<U+200B>-run" "a<U+2060>b<U+061C>c<U+00AD>d<U+2028>e"',
        '• hook "scripts/after.sh"',
      ].join('\n'),
    );
  });

  it('shows a 5,000-character file Claude wrote whole, line by line, with invisible characters named', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `UPDATE accounts SET note = 'row ${String(i).padStart(3, '0')}' WHERE id = ${i};`);
    lines.push('DROP TABLE accounts;\u200B');
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(5000);
    const body = formatApprovalBody({ id: 'db', hash: HASH }, [
      { kind: 'script', path: 'scripts/apply.sh', args: ['changes.sql'] },
      { kind: 'file', path: '/workspace/changes.sql', args: ['5.3 KB', 'written by Claude for scripts/apply.sh', text] },
    ]);
    expect(body).toContain('• file "/workspace/changes.sql" "5.3 KB" "written by Claude for scripts/apply.sh", whole:');
    for (const line of lines.slice(0, -1)) expect(body).toContain(`    │ ${line}`);
    expect(body).toContain('    │ DROP TABLE accounts;<U+200B>');
  });

  it("asks about the shell's exact command, and says what a session grant for the shell covers", () => {
    const body = formatApprovalBody({ id: 'bash', hash: 'shell' }, [{ kind: 'command', path: 'python3 -c "print(1)"\nrm -rf outputs', args: [] }], { requesterId: 'U1', ttlMs: 3_600_000 }, 'shell');
    expect(body).toBe(
      [
        "Claude wants to run a shell command in this thread's workspace (/workspace), in the sandbox:",
        '• command:',
        '    │ python3 -c "print(1)"',
        '    │ rm -rf outputs',
        '"Yes, for this thread" covers every shell command Claude runs in this thread for U1, until 60 minutes after the answer. A request by someone else asks again.',
      ].join('\n'),
    );
  });

  it('shows a one-line command verbatim, its quotes as the shell gets them', () => {
    const command = 'python3 -c "import csv; print(\'a\\tb\')"';
    const body = formatApprovalBody({ id: 'bash', hash: 'shell' }, [{ kind: 'command', path: command, args: [] }], undefined, 'shell');
    expect(body.split('\n').slice(1)).toEqual(['• command:', `    │ ${command}`]);
    expect(body).not.toContain('\\"');
  });

  it('says plainly that the script did not run and that no output exists', () => {
    expect(notRunSentence('no', 'U-bob')).toBe('The script did not run: it was declined by U-bob. No output exists.');
    expect(notRunSentence('timeout', 'system:timeout', 600_000)).toBe(
      'The script did not run: nobody answered the approval within 10 minutes. No output exists.',
    );
    expect(notRunSentence('no', 'system:unattended')).toMatch(/^The script did not run: nobody could be asked .* No output exists\.$/);
    expect(notRunSentence('expired')).toMatch(/^The script did not run: the approval expired .* No output exists\.$/);
  });
});
