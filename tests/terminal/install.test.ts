// `/install PATH` (and `/skills install PATH`) in the terminal chat: a .skill file of this computer, as
// skill-creator packages it, through the same scan and review as a file shared in Slack; the review is the
// terminal's numbered choice, answered by the person at the keyboard. A piped chat cannot answer it, and says so.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../adapters/terminal/chat.ts';
import { type Harness, startHarness } from '../agent/harness.ts';
import { makeZip, skillMd } from '../install/fixtures.ts';

let dir: string;
let harness: Harness | undefined;
let packaged: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillbot-terminal-install-'));
  chmodSync(dir, 0o755);
  packaged = join(dir, 'notes-maker.skill');
  writeFileSync(packaged, makeZip({ 'notes-maker/SKILL.md': skillMd('notes-maker', 'Turns a meeting transcript into notes.', 'Write the notes as bullets.') }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(name: string): Promise<Harness> {
  return startHarness({ skills: [], tweak: (config) => void (config.install.dir = join(dir, `${name}-installed`)) });
}

function chat(on: Harness, tty: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 1000 && !printed.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(printed).toContain(text);
  };
  return { input, screen: () => printed, waitFor, done: runTerminalChat(on.app.core, { input, output, chatId: 'install' }) };
}

describe('installing a .skill file from the terminal chat', () => {
  it('shows the review as a numbered choice; 1 installs it for this terminal, and /skills lists it', async () => {
    harness = await start('tty');
    const { input, screen, waitFor, done } = chat(harness, true);
    input.write(`/install ${packaged}\n`);
    await waitFor('Approval needed: Install notes-maker from notes-maker.skill');
    expect(screen()).toContain('Skill notes-maker');
    expect(screen()).toContain('Turns a meeting transcript into notes.');
    input.write('1\n');
    await waitFor('Installed notes-maker from notes-maker.skill at sha256');
    input.write('/skills\n');
    await waitFor('/skill notes-maker  Turns a meeting transcript into notes.');
    // A path that is not there is named, and nothing is asked.
    input.write('/skills install ./nowhere.skill\n');
    await waitFor('nowhere.skill: no such file.');
    input.write('/quit\n');
    expect(await done).toBe(0);
    expect(harness.app.engine.invocableSkills('terminal:local').map((skill) => skill.id)).toEqual(['notes-maker']);
  }, 60_000);

  it('in a piped chat nothing is installed, and it says to run the host command with --yes', async () => {
    harness = await start('piped');
    const { input, waitFor, done } = chat(harness, false);
    input.end(`/skills install ${packaged}\n`);
    expect(await done).toBe(0);
    await waitFor(`Not installed: a piped chat cannot answer the review. On this host: skillbot skills install ${packaged} --yes`);
    expect(harness.app.engine.invocableSkills('terminal:local')).toEqual([]);
  }, 60_000);
});
