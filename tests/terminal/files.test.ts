// Files in the terminal chat through the real engine and sandbox: `/attach PATH` puts a file of this computer in
// the chat's workspace with its `File:` line, a run reads it there, and what the run leaves in /workspace/outputs
// is copied to OUTPUTS_DIR/<chat folder>/ and printed as a host path.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../adapters/terminal/chat.ts';
import { stepsBrain as steps, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';

const TOTAL_SKILL = {
  name: 'csv-total',
  description: 'Add up the second column of a CSV file the person shares.',
  body: '# CSV total\nRun `scripts/total.sh FILE`: it writes outputs/total.txt with the sum.',
  files: { 'scripts/total.sh': '#!/bin/sh\nawk -F, \'{ s += $2 } END { print "total: " s }\' "$1" > outputs/total.txt\n' },
};

let harness: EngineHarness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function pipe(lines: string[]): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  input.end(lines.map((line) => `${line}\n`).join(''));
  expect(await runTerminalChat(harness!.app.core, { input, output, chatId: 'files-1' })).toBe(0);
  return printed;
}

describe('files in the terminal chat', () => {
  it('attaches a host file, runs a script on it in the sandbox, and copies the output to OUTPUTS_DIR as a host path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbot-terminal-files-'));
    dirs.push(dir);
    const outputs = join(dir, 'outputs');
    await writeFile(join(dir, 'sales q3.csv'), 'north,3\nsouth,4\n');
    await writeFile(join(dir, 'old.txt'), 'earlier');
    harness = await startEngine({ skills: [TOTAL_SKILL], answer: 'yes_once', tweak: (config) => void (config.outputsDir = outputs) });
    const seen: string[] = [];
    harness.fake.setBrain(
      steps([toolUseReply('run_skill_script', { skill_id: 'csv-total', script: 'scripts/total.sh', args: ['sales q3.csv'] }), textReply('The total is 7.')], seen),
    );
    const printed = await pipe([`/attach ${join(dir, 'missing.csv')}`, `/attach "${join(dir, 'sales q3.csv')}"`, 'add up the file']);
    expect(printed).toContain(`Not attached: ${join(dir, 'missing.csv')}: no such file.`);
    expect(printed).toContain('Attached sales q3.csv (16 bytes); it goes with your next message');
    // The model got the file as a Slack upload comes: named with its /workspace path.
    const firstUser = JSON.stringify(harness.fake.requests[0]?.body?.messages.at(-1));
    expect(firstUser).toContain('File: /workspace/sales q3.csv');
    expect(firstUser).toContain('north,3');
    const saved = join(outputs, 'files-1', 'total.txt');
    expect(printed).toContain(`file saved: ${saved}`);
    expect(printed).toContain('The total is 7.');
    expect(await readFile(saved, 'utf8')).toBe('total: 7\n');
    expect((await stat(saved)).uid).toBe(process.getuid?.());
    expect(seen[0]).toContain('Delivered to the chat: total.txt');
    expect(seen[0]).not.toContain('Not delivered');
    // The system prompt tells the terminal's truth, the same bytes on every turn.
    const system = JSON.stringify(harness.fake.requests[0]?.body?.system);
    expect(system).toContain("copied to a folder on the person's computer");
    expect(system).not.toContain('posted to the thread');
    expect(JSON.stringify(harness.fake.requests.at(-1)?.body?.system)).toBe(system);
  });

  it('never writes over an earlier output: a second run of the same name gets (2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbot-terminal-files-'));
    dirs.push(dir);
    const outputs = join(dir, 'outputs');
    await writeFile(join(dir, 'a.csv'), 'x,1\n');
    harness = await startEngine({ skills: [TOTAL_SKILL], answer: 'yes_once', tweak: (config) => void (config.outputsDir = outputs) });
    const run = toolUseReply('run_skill_script', { skill_id: 'csv-total', script: 'scripts/total.sh', args: ['a.csv'] });
    harness.fake.setBrain(steps([run, textReply('one'), run, textReply('two')], []));
    const printed = await pipe([`/attach ${join(dir, 'a.csv')}`, 'first', 'second']);
    expect(printed).toContain(`file saved: ${join(outputs, 'files-1', 'total.txt')}`);
    expect(printed).toContain(`file saved: ${join(outputs, 'files-1', 'total (2).txt')}`);
  });
});
