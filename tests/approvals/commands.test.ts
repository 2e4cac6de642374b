import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandOutput } from '../../src/ops/commandOutput.ts';
import { createAuditLog, runAuditEntry, type AuditEntry } from '../../src/approvals/audit.ts';
import { runAuditCommand, runGrantsCommand } from '../../src/approvals/commands.ts';
import { createGrants, grantKey } from '../../src/approvals/grants.ts';
import { createRecordSealer } from '../../src/approvals/recordSeal.ts';

const sealer = createRecordSealer(Buffer.alloc(32, 7));
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

const HASH = '0123456789abcdef'.repeat(4);

function captured(): CommandOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => void stdout.push(text), err: (text) => void stderr.push(text) };
}

function entry(overrides: Partial<AuditEntry>): AuditEntry {
  return {
    at: Date.UTC(2026, 0, 2, 3, 4, 5),
    kind: 'approval',
    worldId: 'slack:T1:C1',
    chatId: 'slack:T1:C1/100.1',
    skillId: 'pdf-tools',
    skillHash: HASH,
    items: [{ kind: 'script', path: 'scripts/extract.py', args: ['a b.pdf'] }],
    requestedBy: 'U-alice',
    decidedBy: 'U-alice',
    outcome: 'yes_once',
    approvalId: 'abc',
    ...overrides,
  };
}

describe('skillbot audit and skillbot grants', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-hitl-cli-'));
    store = await createStore(`sqlite://${path.join(dir, 'skillbot.sqlite')}`);
  });

  afterEach(async () => {
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('audit prints every record in time order, and filters by world and chat', async () => {
    const audit = createAuditLog(store);
    await audit.record(entry({ at: Date.UTC(2026, 0, 2, 3, 4, 7), kind: 'run', outcome: 'ok', exitCode: 0, durationMs: 42 }));
    await audit.record(entry({}));
    await audit.record(entry({ at: Date.UTC(2026, 0, 2, 3, 4, 6), worldId: 'discord:G:C', chatId: 'discord:G:C/T', outcome: 'no', decidedBy: 'U-bob' }));

    const all = captured();
    expect(await runAuditCommand([], { store, output: all })).toBe(0);
    const lines = all.stdout.join('\n').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      '2026-01-02T03:04:05.000Z  approval  slack:T1:C1/100.1  pdf-tools@0123456789ab  scripts/extract.py "a b.pdf"  asked by U-alice  decided by U-alice  yes_once',
    );
    expect(lines[1]).toContain('discord:G:C/T');
    expect(lines[1]).toContain('decided by U-bob  no');
    expect(lines[2]).toContain('run  slack:T1:C1/100.1');
    expect(lines[2]).toContain('ok (exit 0, 42 ms)');

    const slack = captured();
    expect(await runAuditCommand(['--world', 'slack:T1:C1', '--json'], { store, output: slack })).toBe(0);
    const parsed = JSON.parse(slack.stdout.join('')) as { entries: AuditEntry[] };
    expect(parsed.entries.map((e) => e.kind)).toEqual(['approval', 'run']);

    const chat = captured();
    expect(await runAuditCommand(['--chat', 'discord:G:C/T', '--json'], { store, output: chat })).toBe(0);
    expect((JSON.parse(chat.stdout.join('')) as { entries: AuditEntry[] }).entries.map((e) => e.decidedBy)).toEqual(['U-bob']);
  });

  it('audit filters by person (asking or deciding), skill and time, and refuses a time it cannot read', async () => {
    const audit = createAuditLog(store);
    const now = Date.now();
    await audit.record(entry({ at: now - 3 * 86_400_000, skillId: 'old-skill' }));
    await audit.record(entry({ at: now - 3_600_000, decidedBy: 'U-bob', outcome: 'no' }));
    await audit.record(entry({ at: now - 60_000, skillId: 'csv-summary', requestedBy: 'U-carol', decidedBy: 'U-carol' }));
    const read = async (args: string[]) => {
      const out = captured();
      expect(await runAuditCommand([...args, '--json'], { store, output: out })).toBe(0);
      return (JSON.parse(out.stdout.join('')) as { entries: AuditEntry[] }).entries;
    };
    expect((await read(['--person', 'U-bob'])).map((e) => e.outcome)).toEqual(['no']);
    expect((await read(['--person', 'U-alice'])).map((e) => e.skillId)).toEqual(['old-skill', 'pdf-tools']);
    expect((await read(['--skill', 'csv-summary'])).map((e) => e.requestedBy)).toEqual(['U-carol']);
    expect((await read(['--since', '2h'])).map((e) => e.skillId)).toEqual(['pdf-tools', 'csv-summary']);
    expect((await read(['--until', new Date(now - 86_400_000).toISOString()])).map((e) => e.skillId)).toEqual(['old-skill']);
    expect(await read(['--since', '30m', '--person', 'U-bob'])).toEqual([]);

    const bad = captured();
    expect(await runAuditCommand(['--since', 'yesterday'], { store, output: bad })).toBe(2);
    expect(bad.stderr[0]).toMatch(/^skillbot audit: --since "yesterday" is neither a date nor an age/);
  });

  it("audit shows a hook's output under its run (its journal), every invisible character named", async () => {
    const audit = createAuditLog(store);
    const hook = { kind: 'hook' as const, path: 'hooks/journal.sh', args: ['post_execute'] };
    await audit.record(runAuditEntry({ worldId: 'slack:T1:C1', chatId: 'slack:T1:C1/100.1', turnId: 't1', requesterId: 'U-alice', skill: { id: 'journal', hash: HASH } }, hook, {
      status: 'ok',
      exitCode: 0,
      durationMs: 5,
      stdout: '{"event":"post_execute"}\nsecond\u202Eline\n',
    }));
    const script = { kind: 'script' as const, path: 'scripts/run.sh', args: [] };
    await audit.record(runAuditEntry({ worldId: 'slack:T1:C1', chatId: 'slack:T1:C1/100.1', turnId: 't1', requesterId: 'U-alice', skill: { id: 'journal', hash: HASH } }, script, {
      status: 'ok',
      exitCode: 0,
      durationMs: 5,
      stdout: 'a script output the audit does not keep',
    }));
    const out = captured();
    expect(await runAuditCommand([], { store, output: out })).toBe(0);
    const lines = out.stdout.join('\n').split('\n');
    expect(lines.slice(1, 3)).toEqual(['    {"event":"post_execute"}', '    second<U+202E>line']);
    expect(lines.join('\n')).not.toContain('a script output');
  });

  it('audit says so when there is nothing, and exits 2 with the usage on a bad flag', async () => {
    const empty = captured();
    expect(await runAuditCommand([], { store, output: empty })).toBe(0);
    expect(empty.stdout).toEqual(['No audit records.']);

    const bad = captured();
    expect(await runAuditCommand(['--wrold', 'x'], { store, output: bad })).toBe(2);
    expect(bad.stderr).toHaveLength(1);
    expect(bad.stderr[0]).toMatch(/^skillbot audit: .*--wrold.*Usage: skillbot audit \[--world W\] \[--chat C\] \[--person P\] \[--skill S\] \[--since T\] \[--until T\] \[--json\]/);
    expect(bad.stderr[0]).not.toContain('\n');
    expect(bad.stdout).toEqual([]);
  });

  it('grants list shows the grants, as text or JSON, filtered by world or chat', async () => {
    const grants = createGrants(store, { sealer });
    await grants.add(grantKey('slack:T1:C1', 'slack:T1:C1/1', 'pdf-tools', HASH, 'U-req'), 'U-alice');
    await grants.add(grantKey('slack:T1:C1', 'slack:T1:C1/2', 'csv-tools', HASH, 'U-req'), 'U-bob');
    await grants.add(grantKey('discord:G:C', 'discord:G:C/T', 'pdf-tools', HASH, 'U-req'), 'U-carol');

    const text = captured();
    expect(await runGrantsCommand(['list', '--world', 'slack:T1:C1'], { store, output: text, sealer })).toBe(0);
    const lines = text.stdout.join('\n').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^slack:T1:C1\/1 {2}pdf-tools@0123456789ab {2}asked by U-req {2}granted by U-alice {2}expires \d{4}-/);

    const json = captured();
    expect(await runGrantsCommand(['list', '--chat', 'discord:G:C/T', '--json'], { store, output: json, sealer })).toBe(0);
    const parsed = JSON.parse(json.stdout.join('')) as { grants: Array<{ grantedBy: string; skillHash: string }> };
    expect(parsed.grants.map((grant) => grant.grantedBy)).toEqual(['U-carol']);
    expect(parsed.grants[0]?.skillHash).toBe(HASH);

    const none = captured();
    expect(await runGrantsCommand(['list', '--world', 'slack:T9:C9'], { store, output: none, sealer })).toBe(0);
    expect(none.stdout).toEqual(['No grants.']);
  });

  it('grants revoke removes one chat, one skill or all, and says how many', async () => {
    const grants = createGrants(store, { sealer });
    await grants.add(grantKey('slack:T1:C1', 'slack:T1:C1/1', 'pdf-tools', HASH, 'U-req'), 'U-alice');
    await grants.add(grantKey('slack:T1:C1', 'slack:T1:C1/1', 'csv-tools', HASH, 'U-req'), 'U-alice');
    await grants.add(grantKey('slack:T1:C1', 'slack:T1:C1/2', 'pdf-tools', HASH, 'U-req'), 'U-alice');
    await grants.add(grantKey('discord:G:C', 'discord:G:C/T', 'csv-tools', HASH, 'U-req'), 'U-alice');

    const one = captured();
    expect(await runGrantsCommand(['revoke', '--chat', 'slack:T1:C1/1', '--skill', 'csv-tools'], { store, output: one })).toBe(0);
    expect(one.stdout).toEqual(['Revoked 1 grant.']);

    const chat = captured();
    expect(await runGrantsCommand(['revoke', '--chat', 'slack:T1:C1/1'], { store, output: chat })).toBe(0);
    expect(chat.stdout).toEqual(['Revoked 1 grant.']);

    const skill = captured();
    expect(await runGrantsCommand(['revoke', '--skill', 'csv-tools'], { store, output: skill })).toBe(0);
    expect(skill.stdout).toEqual(['Revoked 1 grant.']);
    expect((await grants.list()).map((grant) => grant.chatId)).toEqual(['slack:T1:C1/2']);

    const all = captured();
    expect(await runGrantsCommand(['revoke', '--all'], { store, output: all })).toBe(0);
    expect(all.stdout).toEqual(['Revoked 1 grant.']);
    expect(await grants.list()).toEqual([]);
  });

  it('grants exits 2 with a one-line fix on bad usage, changing nothing', async () => {
    const grants = createGrants(store, { sealer });
    await grants.add(grantKey('slack:T1:C1', 'slack:T1:C1/1', 'pdf-tools', HASH, 'U-req'), 'U-alice');
    const cases: Array<[string[], RegExp]> = [
      [[], /^skillbot grants: missing subcommand\. Usage: skillbot grants list/],
      [['purge'], /^skillbot grants: unknown subcommand "purge"\. Usage:/],
      [['revoke'], /^skillbot grants revoke: say what to revoke\. Usage: skillbot grants revoke --chat C \[--skill S\] \| --skill S \| --all$/],
      [['revoke', '--all', '--chat', 'slack:T1:C1/1'], /^skillbot grants revoke: --all takes no --chat or --skill\. Usage:/],
      [['revoke', '--chat'], /^skillbot grants revoke: .*--chat.*Usage:/],
      [['list', 'extra'], /^skillbot grants list: .*Usage: skillbot grants list/],
    ];
    for (const [args, message] of cases) {
      const output = captured();
      expect(await runGrantsCommand(args, { store, output })).toBe(2);
      expect(output.stderr).toHaveLength(1);
      expect(output.stderr[0]).toMatch(message);
      expect(output.stderr[0]).not.toContain('\n');
    }
    expect(await grants.list()).toHaveLength(1);
  });
});
