import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runTerminalChat } from '../../adapters/terminal/chat.ts';
import { lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type Harness, STATS_SKILL, startHarness } from '../agent/harness.ts';

let harness: Harness | undefined;
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
      return toolUseReply('load_skill', { skill_id: 'repo-stats' });
    });
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = new PassThrough();
    let screen = '';
    output.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 500 && !screen.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(screen).toContain(text);
    };
    const done = runTerminalChat(harness.app, { input, output, chatId: 'tty' });
    input.write('how big is the repo?\n');
    await waitFor('1) yes_once   2) yes_in_session   3) no');
    input.write('maybe\n');
    await waitFor('Type 1, 2 or 3');
    input.write('1\n');
    await waitFor('The repo has 42 lines.');
    input.write('/usage\n');
    await waitFor('1 turns:');
    input.write('/quit\n');
    expect(await done).toBe(0);
  });
});
