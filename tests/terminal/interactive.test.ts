import { PassThrough } from 'node:stream';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../adapters/terminal/chat.ts';
import { lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type Harness, STATS_SKILL, startHarness } from '../agent/harness.ts';

let harness: Harness | undefined;

/** The terminal chat on a fake TTY: what it printed so far, and a wait for a text to show. */
function openTty(on: Harness, chatId: string) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 500 && !printed.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(printed).toContain(text);
  };
  /** Waits for the prompt after `text`: an answer streams before its turn is over, and a person types after the prompt. */
  const waitForPromptAfter = async (text: string) => {
    for (let i = 0; i < 500 && printed.lastIndexOf('you>') < printed.lastIndexOf(text); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(printed.lastIndexOf('you>')).toBeGreaterThan(printed.lastIndexOf(text));
  };
  return { input, screen: () => printed, waitFor, waitForPromptAfter, done: runTerminalChat(on.app.core, { input, output, chatId }) };
}
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the interactive terminal chat', () => {
  it('asks with a numbered choice, runs the script on 1, and shows usage', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    harness.fake.setBrain((req) => {
      const result = lastToolResult(req);
      if (result) return textReply(result.content.includes('lines: 42') ? 'The repo has 42 lines.' : 'It did not run.');
      const asked = lastUserText(req) ?? '';
      if (asked.includes('tests')) return textReply(`I was asked: ${asked}`);
      return toolUseReply('load_skill', { skill_id: 'repo-stats' });
    });
    const { input, screen, waitFor, waitForPromptAfter, done } = openTty(harness, 'tty');
    input.write('how big is the repo?\n');
    await waitFor('1) Yes, once   2) Yes, for this session   3) No   [default: No]');
    expect(screen()).toContain('"Yes, for this session" covers runs of repo-stats');
    expect(screen()).not.toMatch(/yes_once|thread/);
    input.write('4\n');
    await waitFor('Type 1 (Yes, once), 2 (Yes, for this session), 3 (No).');
    // Words typed while the question is open are a message for after the turn, not a wrong answer.
    input.write('and what about the tests?\n');
    await waitFor('(Queued: answered after this turn.');
    input.write('1\n');
    await waitFor('The repo has 42 lines.');
    await waitFor('I was asked: and what about the tests?');
    // Its usage is recorded once the turn is over: ask once the prompt is back.
    await waitForPromptAfter('I was asked');
    input.write('/usage\n');
    await waitFor('2 turns:');
    input.write('/quit\n');
    expect(await done).toBe(0);
  });

  it('prints the answer once, with what the model said before its tool call and the progress lines in between', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    const fake = harness.fake;
    fake.setBrain((req) => {
      const result = lastToolResult(req);
      if (result) return textReply(result.content.includes('lines: 42') ? 'The repo has 42 lines.' : 'It did not run.');
      // The answer's call is cut off mid-stream once, and retried.
      fake.failNext({ kind: 'cut', afterDeltas: 2 });
      return { content: [{ type: 'text', text: "I'll look at the repo." }, ...toolUseReply('load_skill', { skill_id: 'repo-stats' }).content] };
    });
    const { input, screen, waitFor, done } = openTty(harness, 'tty-once');
    input.write('how big is the repo?\n');
    await waitFor('3) No');
    input.write('1\n');
    await waitFor('The repo has 42 lines.');
    input.write('/quit\n');
    expect(await done).toBe(0);
    const printed = screen();
    const count = (text: string) => printed.split(text).length - 1;
    expect(count('The repo has 42 lines.')).toBe(1);
    expect(count("I'll look at the repo.")).toBe(1);
    const before = printed.indexOf("bot> I'll look at the repo.");
    const progress = printed.indexOf('  … Loading repo-stats…');
    const answer = printed.indexOf('The repo has 42 lines.');
    expect(before).toBeGreaterThanOrEqual(0);
    expect(progress).toBeGreaterThan(before);
    expect(answer).toBeGreaterThan(progress);
    expect(printed).toContain('retrying');
  });

  it('says when it showed Claude an image, and Claude gets it as an image block', async () => {
    const chart = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const charts = { name: 'charts', body: 'The house style is in assets/chart.png: look at it before drawing.', files: { 'assets/chart.png': chart } };
    harness = await startHarness({ skills: [charts] });
    harness.fake.setBrain((req) => {
      const result = lastToolResult(req);
      if (result === undefined) return toolUseReply('load_skill', { skill_id: 'charts' });
      if (result.content.includes('<skill_context')) return toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/skills/charts/assets/chart.png' });
      return textReply(`Seen: ${result.content}`);
    });
    const { input, waitFor, done } = openTty(harness, 'tty-image');
    input.write('draw a chart in our style\n');
    await waitFor('Seen: /skills/charts/assets/chart.png: PNG image, 64×48 pixels');
    await waitFor('  … Showed Claude the image /skills/charts/assets/chart.png (64×48)\n');
    const sent = JSON.stringify(harness.fake.requests.at(-1)?.body?.messages.at(-1));
    expect(sent).toContain(`"media_type":"image/png","data":"${chart.toString('base64')}"`);
    input.write('/quit\n');
    expect(await done).toBe(0);
  });

  it('shows every argument with invisible characters named, and prints no raw escape sequence from the model', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    const args = [...Array.from({ length: 96 }, (_, i) => `--table=customers_archive_${i}_partition`), '--dry\u200B-run', '--drop-table', 'customers'];
    harness.fake.setBrain((req) => {
      const result = lastToolResult(req);
      if (result) return textReply('\u001b[2J\u001b]0;pwned\u0007Done \u001b[8mhidden\u001b[0m \u009b31m');
      return toolUseReply('run_skill_script', { skill_id: 'repo-stats', script: 'scripts/count.sh', args });
    });
    const { input, screen, waitFor, done } = openTty(harness, 'tty2');
    input.write('count\n');
    await waitFor('3) No');
    expect(screen()).toContain('"--table=customers_archive_95_partition" "--dry<U+200B>-run" "--drop-table" "customers"');
    input.write('3\n');
    await waitFor('Done');
    await waitFor('<U+009B>31m');
    expect(screen()).toContain('<U+001B>[2J<U+001B>]0;pwned<U+0007>Done <U+001B>[8mhidden');
    // readline draws its own prompt with escape sequences; none of the model's reach the screen raw.
    for (const sequence of ['\u001b[2J', '\u001b]0;pwned', '\u0007', '\u001b[8m', '\u009b']) expect(screen()).not.toContain(sequence);
    input.write('/quit\n');
    expect(await done).toBe(0);
  });
});

describe('stopping and starting afresh in the terminal', () => {
  it('Ctrl-C during a turn stops the turn, not the program; /new starts a conversation without the old history', async () => {
    harness = await startHarness({ skills: [STATS_SKILL] });
    let release = () => {};
    const seen: string[] = [];
    harness.fake.setBrain(async (req) => {
      seen.push(JSON.stringify(req.messages));
      const text = JSON.stringify(req.messages.at(-1));
      if (text.includes('long poem')) await new Promise<void>((resolve) => (release = resolve));
      return textReply(text.includes('kiwi') ? 'noted: kiwi' : 'short answer');
    });
    const { input, waitFor, waitForPromptAfter, done } = openTty(harness, 'stop');
    input.write('remember kiwi\n');
    await waitFor('noted: kiwi');
    input.write('write a long poem\n');
    for (let i = 0; i < 500 && seen.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    input.write('\x03');
    await waitFor('Stopped by ');
    release();
    input.write('what did I say?\n');
    await waitFor('short answer');
    expect(seen.at(-1)).toContain('kiwi');

    await waitForPromptAfter('short answer');
    input.write('/new\n');
    await waitFor('A fresh conversation');
    input.write('and now?\n');
    for (let i = 0; i < 500 && seen.length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.at(-1)).not.toContain('kiwi');
    input.write('/quit\n');
    expect(await done).toBe(0);
  });
});

describe('the terminal chat when the store is gone', () => {
  it('says once per message that it was not answered, and goes on to the next line', async () => {
    harness = await startHarness();
    await harness.app.store.close();
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    input.end('hello?\nstill there?\n');
    expect(await runTerminalChat(harness.app.core, { input, output, chatId: 'gone' })).toBe(0);
    const notTaken = 'Your message was not answered: the store did not take it; try again in a moment';
    expect(screen.trim().split('\n')).toEqual([notTaken, notTaken]);
    expect(harness.fake.requests).toHaveLength(0);
  });
});
