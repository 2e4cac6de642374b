// The contract's delivery scenarios: every answer shows once (through tool calls and a retried model call), the
// turn can be stopped from its first moment, and "stop" ends an answer while it is being written.
import { expect, it } from 'vitest';
import { lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { ContractContext } from './contract.ts';
import { NOTES_SKILL } from './skills.ts';

const BEFORE_TOOL = 'Let me load the release notes skill.';
const ANSWER = 'The release plan: ship on Friday.';
/** An answer long enough to be written for seconds (about 3,000 characters, streamed slowly). */
const LONG_ANSWER = Array.from({ length: 300 }, (_, index) => `word${index}`).join(' ');

export function deliveryScenarios(ctx: ContractContext): void {
  it('shows each text once: what the model wrote before a tool call, and an answer whose model call was cut and retried', async () => {
    ctx.anthropic.setBrain((req) => {
      if (lastToolResult(req)) return textReply(ANSWER);
      // The next call (the answer) is cut off mid-stream and retried.
      ctx.anthropic.failNext({ kind: 'cut', afterDeltas: 2 });
      return { content: [{ type: 'text', text: BEFORE_TOOL }, ...toolUseReply('load_skill', { skill_id: NOTES_SKILL.id }).content] };
    });
    const chat = await ctx.driver.mention('alice', 'what is the release plan?');
    await chat.waitForAnswer(ANSWER);
    await expect.poll(() => chat.hasStopButton(), { timeout: 10_000 }).toBe(false);
    // One answer, led by the sentence written before the tool call.
    expect(chat.answers().filter((answer) => answer.includes(ANSWER))).toEqual([`${BEFORE_TOOL}\n\n${ANSWER}`]);
    // Never posted twice, not even for a moment (a message deleted later counts), and nothing posted then taken back.
    expect(chat.messagesThatHeld(ANSWER)).toBe(1);
    expect(chat.messagesThatHeld(BEFORE_TOOL)).toBe(1);
    expect(chat.messagesDeleted()).toBe(0);
    // The cut-off text is not left standing.
    expect(chat.answers().some((answer) => answer.includes('cut short'))).toBe(false);
  });

  it('offers Stop from the start of the turn, before anything else shows', async () => {
    ctx.anthropic.setBrain(async () => {
      await ctx.held.hold();
      return textReply('too late');
    });
    const chat = await ctx.driver.mention('alice', 'think about it for a while');
    await expect.poll(() => ctx.held.count, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => chat.hasStopButton(), { timeout: 5_000 }).toBe(true);
    await chat.clickStop('alice');
    await chat.waitForStopped('alice');
    ctx.held.releaseAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(chat.answers()).toEqual([]);
    expect(chat.hasStopButton()).toBe(false);
    expect(chat.messagesDeleted()).toBe(0);
  });

  it('shows a long answer as it is written, and "stop" typed meanwhile ends it there', async () => {
    ctx.anthropic.setBrain(() => ({ ...textReply(LONG_ANSWER), chunkDelayMs: 25 }));
    const chat = await ctx.driver.mention('alice', 'tell me everything');
    // Part of the answer shows while the rest is still being written.
    await expect.poll(() => chat.messagesThatHeld('word3 word4'), { timeout: 15_000, interval: 50 }).toBe(1);
    await chat.say('alice', 'stop');
    await chat.waitForStopped('alice');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // It was not written to its end, and nothing goes on being written.
    expect(chat.messagesThatHeld('word299')).toBe(0);
    expect(chat.hasStopButton()).toBe(false);
  });
}
