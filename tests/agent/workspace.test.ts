// A chat's workspace through the real engine (registry, store, approvals, sandboxed executor) and the Anthropic
// fake: a Word-style chain over runs, turns and a restart; loading that runs nothing; the shell under approval
// and turned off per world; the editor that never leaves the workspace; the bound while a run writes.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsBrain as steps, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { minimalDocx, zipEntryText } from '../fixtures/documents.ts';
import { DOC_EDIT_SKILL } from '../fixtures/documentSkills.ts';
import { type EngineHarness, startEngine, WORLD } from '../lifecycle/engineHarness.ts';

let harness: EngineHarness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-workspace-'));
  dirs.push(dir);
  return dir;
}

const say = (text: string) => ({ text });

describe('a Word-style chain in the workspace', () => {
  const docx = minimalDocx('Hello World');
  const turnOne = [
    toolUseReply('load_skill', { skill_id: 'doc-edit' }, say("I'll load the document skill.")),
    toolUseReply('run_skill_script', { skill_id: 'doc-edit', script: 'scripts/unpack.py', args: ['report.docx', 'unpacked'] }, say('Unpacking it.')),
    toolUseReply('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/unpacked/word/document.xml', old_str: 'World', new_str: 'Team' }, say('Editing the text.')),
    textReply('Edited; say when to pack it.'),
  ];
  const turnTwo = [
    toolUseReply('bash', { command: 'grep -o "Hello Team" unpacked/word/document.xml' }, say('Checking the edit.')),
    toolUseReply('run_skill_script', { skill_id: 'doc-edit', script: 'scripts/pack.py', args: ['unpacked', 'outputs/report-edited.docx'] }, say('Packing it.')),
    textReply('Packed.'),
  ];

  it('unpacks, edits and packs over three runs and two turns, across a restart', async () => {
    const dir = await tempDir();
    const store = `sqlite://${join(dir, 'state.sqlite')}`;
    const uploads: Array<{ name: string; bytes: Uint8Array }> = [];
    const seen: string[] = [];
    const first = await startEngine({ skills: [DOC_EDIT_SKILL], answer: 'yes_in_session', dir, store });
    first.fake.setBrain(steps(turnOne, seen));
    const one = await first.say('change World to Team in this', { files: [{ name: 'report.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: docx }] });
    expect(one.reply).toBe('Edited; say when to pack it.');
    expect(seen[1]).toContain('unpacked 2 parts into unpacked');
    expect(seen[1]).toContain('<file path="/workspace/unpacked/word/document.xml"');
    expect(seen[2]).toBe('Successfully replaced text at exactly one location in /workspace/unpacked/word/document.xml.');
    await first.close();

    harness = await startEngine({ skills: [DOC_EDIT_SKILL], answer: 'yes_in_session', dir, store, uploads });
    harness.fake.setBrain(steps(turnTwo, seen));
    const two = await harness.say('pack it');
    expect(two.reply).toMatch(/^Packed\./);
    expect(seen[3]).toMatch(/^Hello Team$/m);
    expect(seen[4]).toContain('Delivered to the chat: report-edited.docx');
    const packed = uploads.find((file) => file.name === 'report-edited.docx');
    expect(zipEntryText(packed?.bytes ?? new Uint8Array(), 'word/document.xml')).toContain('<w:t>Hello Team</w:t>');
    // "Yes for this thread" on the unpack covered the pack after the restart; the shell was asked once.
    expect(first.asked.length + harness.asked.length).toBe(2);
  });

  describe.runIf(process.env.REDIS_URL)('on Redis', () => {
    it('the chat moves to another instance with its own disk, and finds its workspace there', async () => {
      const [a, b] = [await tempDir(), await tempDir()];
      const store = process.env.REDIS_URL ?? '';
      // A chat of its own on the shared server.
      const chat = `failover-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const uploads: Array<{ name: string; bytes: Uint8Array }> = [];
      const seen: string[] = [];
      const first = await startEngine({ skills: [DOC_EDIT_SKILL], answer: 'yes_in_session', dir: a, store });
      first.fake.setBrain(steps(turnOne, seen));
      await first.say('change World to Team in this', { chat, files: [{ name: 'report.docx', mimeType: 'application/octet-stream', bytes: docx }] });
      await first.close();

      // Another machine: another WORKSPACES_DIR, the same store.
      harness = await startEngine({ skills: [DOC_EDIT_SKILL], answer: 'yes_in_session', dir: b, store, uploads });
      harness.fake.setBrain(steps(turnTwo, seen));
      await harness.say('pack it', { chat });
      expect(seen[3]).toMatch(/^Hello Team$/m);
      const packed = uploads.find((file) => file.name === 'report-edited.docx');
      expect(zipEntryText(packed?.bytes ?? new Uint8Array(), 'word/document.xml')).toContain('<w:t>Hello Team</w:t>');
    });
  });
});

describe('loading a skill runs nothing', () => {
  const DEPLOY = {
    name: 'deploy-prod',
    body: 'Deploy the service: run `scripts/deploy.sh $0` and report what it prints.',
    files: { 'scripts/deploy.sh': '#!/bin/bash\necho "deploying to ${1:?which environment?}"\n' },
  };

  it('shows no card at load; the script runs when the model calls it, with the arguments the person approved', async () => {
    const seen: string[] = [];
    harness = await startEngine({ skills: [DEPLOY], answer: 'yes_once' });
    harness.fake.setBrain(
      steps([toolUseReply('run_skill_script', { skill_id: 'deploy-prod', script: 'scripts/deploy.sh', args: ['staging'] }, say('Deploying to staging.')), textReply('Deployed.')], seen),
    );
    const { reply } = await harness.say('', { skill: { id: 'deploy-prod', args: 'staging' } });
    expect(reply).toBe('Deployed.');
    expect(harness.asked).toHaveLength(1);
    expect(harness.asked[0]?.items[0]).toEqual({ kind: 'script', path: 'scripts/deploy.sh', args: ['staging'] });
    expect(seen[0]).toContain('deploying to staging');
    // The body the model read had the person's word in place of $0.
    expect(JSON.stringify(harness.fake.requests[0]?.body?.messages)).toContain('scripts/deploy.sh staging');
  });

  it('runs a script named only in a linked reference, and refuses one named nowhere', async () => {
    const seen: string[] = [];
    harness = await startEngine({
      answer: 'yes_once',
      skills: [{
        name: 'linked',
        body: 'See [the guide](references/guide.md).',
        files: { 'references/guide.md': 'Run `../scripts/named.sh` (or scripts/named.sh).', 'scripts/named.sh': '#!/bin/sh\necho named ran\n', 'scripts/hidden.sh': '#!/bin/sh\necho hidden ran\n' },
      }],
    });
    harness.fake.setBrain(
      steps([
        toolUseReply('run_skill_script', { skill_id: 'linked', script: 'scripts/named.sh' }, say('Running it.')),
        toolUseReply('run_skill_script', { skill_id: 'linked', script: 'scripts/hidden.sh' }, say('And the other.')),
        textReply('done'),
      ], seen),
    );
    await harness.say('go');
    expect(seen[0]).toContain('named ran');
    expect(seen[1]).toContain('code="script_not_referenced"');
    expect(seen[1]).not.toContain('hidden ran');
  });
});

describe('a turn pays only for the workspace it uses', () => {
  it('a plain turn makes no workspace folder and writes no workspace record; the first command makes it, and it stays', async () => {
    const dir = await tempDir();
    const store = `sqlite://${join(dir, 'state.sqlite')}`;
    harness = await startEngine({ skills: [], answer: 'yes_once', dir, store });
    const seen: string[] = [];
    harness.fake.setBrain(steps([textReply('Hello!')], seen));
    expect((await harness.say('hi')).reply).toBe('Hello!');
    await expect(readdir(join(dir, 'workspaces'))).rejects.toThrow(/ENOENT/);

    harness.fake.setBrain(steps([toolUseReply('bash', { command: 'echo kept > note.txt' }, say('Writing a note.')), textReply('Noted.')], seen));
    expect((await harness.say('write a note')).reply).toMatch(/^Noted\./);
    const chats = await readdir(join(dir, 'workspaces'));
    expect(chats).toHaveLength(1);
    harness.fake.setBrain(steps([textReply('Still here.')], seen));
    await harness.say('thanks');
    expect(await readFile(join(dir, 'workspaces', chats[0] ?? '', 'files', 'note.txt'), 'utf8')).toBe('kept\n');
  });
});

describe('the shell', () => {
  it('is not offered where a world turns it off, and a call anyway is refused', async () => {
    harness = await startEngine({ skills: [], answer: 'yes_once', tweak: (config) => void (config.worlds[WORLD] = { bash: false }) });
    const seen: string[] = [];
    harness.fake.setBrain(steps([toolUseReply('bash', { command: 'id' }, say('Checking.')), textReply('ok')], seen));
    await harness.say('who am i?');
    expect(harness.fake.requests[0]?.body?.tools?.map((tool) => tool.name)).toEqual(['load_skill', 'run_skill_script', 'str_replace_based_edit_tool', 'schedule_followup']);
    expect(seen[0]).toContain('The shell is turned off in this channel');
    expect(harness.asked).toHaveLength(0);
  });

  it('a run that fills the workspace is stopped at the bound, and the person and the model are told', async () => {
    harness = await startEngine({ skills: [], answer: 'yes_once', tweak: (config) => void (config.workspace.maxBytes = 2 * 1024 * 1024) });
    const seen: string[] = [];
    harness.fake.setBrain(steps([toolUseReply('bash', { command: 'for i in $(seq 1 500); do head -c 1M /dev/zero > "fill$i"; done' }, say('Filling.')), textReply('Stopped.')], seen));
    const { reply } = await harness.say('fill it');
    expect(seen[0]).toContain('workspace limit reached (2 MiB)');
    expect(reply).toContain('workspace limit reached (2 MiB)');
  });

  it('files Claude writes for a script that would take the workspace over its bound: nobody is asked, nothing is written or run', async () => {
    const apply = { name: 'sql-apply', body: 'Apply SQL: write it as `files`, then run `scripts/apply.sh`.', files: { 'scripts/apply.sh': '#!/bin/sh\necho applied\n' } };
    harness = await startEngine({ skills: [apply], answer: 'yes_once', tweak: (config) => void (config.workspace.maxBytes = 1024 * 1024) });
    const seen: string[] = [];
    const big = 'x'.repeat(600_000);
    harness.fake.setBrain(
      steps([toolUseReply('run_skill_script', { skill_id: 'sql-apply', script: 'scripts/apply.sh', files: { 'a.sql': big, 'b.sql': big } }, say('Applying it.')), textReply('Did not fit.')], seen),
    );
    const { reply } = await harness.say('apply these');
    expect(harness.asked).toHaveLength(0);
    expect(seen[0]).toContain('workspace limit reached (1 MiB');
    expect(seen[0]).not.toContain('applied');
    expect(reply).toContain('sql-apply/scripts/apply.sh did not run: workspace limit reached (1 MiB');
  });
});

describe('the editor never leaves the workspace', () => {
  it('through links a script planted (to a host file and the bot data folder) it reads and writes nothing, and uploads nothing', async () => {
    const dir = await tempDir();
    const host = join(dir, 'host-secret.txt');
    await writeFile(host, 'host secret\n');
    const data = join(dir, 'workspaces');
    const seen: string[] = [];
    harness = await startEngine({
      answer: 'yes_once',
      dir,
      skills: [],
    });
    harness.fake.setBrain(
      steps([
        toolUseReply('bash', { command: `ln -s ${host} secret; ln -s ${data} data; mkdir -p outputs; ln -s ${host} outputs/leak.txt; ln real.txt hard.txt 2>/dev/null; echo planted` }, say('Planting.')),
        toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/workspace/secret' }, say('Reading.')),
        toolUseReply('str_replace_based_edit_tool', { command: 'create', path: '/workspace/secret', file_text: 'overwritten' }, say('Writing.')),
        toolUseReply('str_replace_based_edit_tool', { command: 'create', path: '/workspace/data/x/evil.txt', file_text: 'in the data folder' }, say('Writing there.')),
        toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/workspace/../../etc/hostname' }, say('Climbing.')),
        toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/workspace' }, say('Listing.')),
        textReply('done'),
      ], seen),
    );
    await harness.say('try it');
    expect(seen[0]).toContain('planted');
    expect(seen[0]).not.toContain('leak.txt');
    expect(seen[1]).toMatch(/^Error: \/workspace\/secret is a symlink, which is never followed/);
    expect(seen[2]).toMatch(/^Error: \/workspace\/secret is a symlink/);
    expect(seen[3]).toMatch(/^Error: \/workspace\/data\/x\/evil\.txt goes through a symlink \(data\)/);
    expect(seen[4]).toMatch(/^Error: \/etc\/hostname is outside the workspace/);
    expect(seen[5]).toContain('/workspace/secret (symlink, not followed)');
    expect(await readFile(host, 'utf8')).toBe('host secret\n');
    expect(JSON.stringify(seen)).not.toContain('host secret');
  });

  it("names a person's file that clashes with one already there with (2), and never overwrites it", async () => {
    const seen: string[] = [];
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    harness.fake.setBrain(() => textReply('ok'));
    await harness.say('first', { files: [{ name: 'notes.txt', mimeType: 'text/plain', bytes: Buffer.from('one') }] });
    harness.fake.setBrain(steps([toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/workspace/notes (2).txt' }, say('Reading.')), textReply('ok')], seen));
    await harness.say('second', { files: [{ name: 'notes.txt', mimeType: 'text/plain', bytes: Buffer.from('two') }] });
    expect(JSON.stringify(harness.fake.requests.at(-2)?.body?.messages.at(-1))).toContain('File: /workspace/notes (2).txt (text/plain, 3 B)');
    expect(seen[0]).toBe('1: two');
  });
});
