// Names and listings from the workspace through the real engine, sandbox and Anthropic fake (issue 27, low
// findings): the editor's folder view is bounded; names a script makes reach the model and the chat spelled out,
// never raw (newlines, ESC, bidi); the files Claude writes for a script may not collapse into one name, and one
// that cannot be written is a "not run" result, not a failed turn; a person's file with a long multi-byte name
// is placed under a name the file system takes.
import { lstat, readFile, rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsBrain as steps, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  if (harness !== undefined) await rm(harness.dir, { recursive: true, force: true });
  harness = undefined;
});

const say = (text: string) => ({ text });

describe('the workspace as the model and the person see it', () => {
  it('F11: the editor lists at most a bounded number of entries of a large folder, and says how many more', async () => {
    const seen: string[] = [];
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    harness.fake.setBrain(
      steps([
        toolUseReply('bash', { command: 'mkdir many && cd many && for i in $(seq 1 3000); do : > "file-with-a-longer-name-$i.txt"; done; echo made' }, say('Making files.')),
        toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/workspace' }, say('Listing.')),
        textReply('done'),
      ], seen),
    );
    await harness.say('list it');
    expect(seen[0]).toContain('made');
    expect(seen[1]?.length).toBeLessThan(40_000);
    expect(seen[1]).toMatch(/… and \d+ more not shown \(the view stops at 500 entries or 20,000 characters\): view a subfolder, or use bash to search$/);
  });

  it('F12: names a script makes reach the model and the chat with control and bidi characters spelled out', async () => {
    const seen: string[] = [];
    const uploads: Array<{ name: string; bytes: Uint8Array }> = [];
    const maker = { name: 'name-maker', body: 'Run `scripts/make.sh`.', files: { 'scripts/make.sh': "#!/bin/bash\nprintf 'x' > \"outputs/$(printf 'report\\n\\033[31mFAKE\\u202etxt.exe')\"\necho made\n" } };
    harness = await startEngine({ skills: [maker], answer: 'yes_once', uploads });
    harness.fake.setBrain(steps([toolUseReply('run_skill_script', { skill_id: 'name-maker', script: 'scripts/make.sh' }, say('Making it.')), textReply('done')], seen));
    await harness.say('make it');
    expect(seen[0]).toContain('made');
    // The envelope escapes < and > in attribute values as XML does.
    expect(seen[0]).toContain('/workspace/outputs/report&lt;U+000A&gt;&lt;U+001B&gt;[31mFAKE&lt;U+202E&gt;txt.exe');
    for (const raw of ['\u001b', '\u202e', 'report\n']) expect(seen[0]).not.toContain(raw);
    expect(uploads.map((file) => file.name)).toEqual(['report<U+000A><U+001B>[31mFAKE<U+202E>txt.exe']);
  });

  it('F13: files whose names collapse into one are refused before anyone is asked; a file that cannot be written is "not run"', async () => {
    const seen: string[] = [];
    const apply = { name: 'sql-apply', body: 'Apply SQL: write it as `files`, then run `scripts/apply.sh`.', files: { 'scripts/apply.sh': '#!/bin/sh\ncat q.sql\n' } };
    harness = await startEngine({ skills: [apply], answer: 'yes_once' });
    harness.fake.setBrain(
      steps([
        toolUseReply('run_skill_script', { skill_id: 'sql-apply', script: 'scripts/apply.sh', files: { 'q.sql': 'select 1;', '../q.sql': 'drop table users;', 'sub/q.sql': 'select 2;' } }, say('Applying.')),
        textReply('Refused.'),
      ], seen),
    );
    const first = await harness.say('apply');
    expect(harness.asked).toHaveLength(0);
    expect(seen[0]).toContain('Not run: the files written for it collide: the names "q.sql", "../q.sql", "sub/q.sql" all become /workspace/q.sql');
    expect(first.reply).toContain('sql-apply/scripts/apply.sh did not run');

    harness.fake.setBrain(
      steps([
        toolUseReply('bash', { command: 'ln -s /etc/hostname q.sql; echo planted' }, say('Planting.')),
        toolUseReply('run_skill_script', { skill_id: 'sql-apply', script: 'scripts/apply.sh', files: { 'q.sql': 'select 1;' } }, say('Applying.')),
        textReply('Done.'),
      ], seen),
    );
    const second = await harness.say('apply again');
    expect(second.status).toBe('answered');
    expect(seen[2]).toContain('Not run: /workspace/q.sql is a symlink, which is never followed');
    expect(second.reply).toBe('Done.\n\n_sql-apply/scripts/apply.sh did not run: /workspace/q.sql is a symlink, which is never followed._');
  });

  it('F15: a file with a 600-byte multi-byte name is placed under a name cut to 255 bytes, and the model is told that name', async () => {
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    harness.fake.setBrain(() => textReply('ok'));
    const name = `${'é'.repeat(300)}.txt`;
    const turn = await harness.say('here', { files: [{ name, mimeType: 'text/plain', bytes: Buffer.from('hello') }] });
    expect(turn.reply).toBe('ok');
    const cut = `${'é'.repeat(125)}.txt`;
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(255);
    expect(JSON.stringify(harness.fake.requests.at(-1)?.body?.messages.at(-1))).toContain(`File: /workspace/${cut} (text/plain, 5 B)`);
    const files = (await import('node:fs/promises')).readdir;
    const workspaces = `${harness.dir}/workspaces`;
    for (const chat of await files(workspaces)) {
      if (!/^[0-9a-f]{32}$/.test(chat)) continue;
      expect(await readFile(`${workspaces}/${chat}/files/${cut}`, 'utf8')).toBe('hello');
      expect((await lstat(`${workspaces}/${chat}/files/${cut}`)).isFile()).toBe(true);
    }
  });
});
