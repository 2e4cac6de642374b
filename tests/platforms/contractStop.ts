// The contract's stop scenarios: a person stops a running turn with the platform's Stop button or a message that
// is just "stop"; a stranger cannot; a stopped turn answers nothing more, and the chat takes the next message.
import { expect, it } from 'vitest';
import { STOP_NOT_ALLOWED_TEXT } from '../../src/chats/stop.ts';
import { lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { hostPidsWith, isAlive } from '../exec/skillFolder.ts';
import type { ContractContext } from './contract.ts';
import { NOTES_SKILL, REPORT_SKILL, SLOW_SKILL, SLOW_SLEEP } from './skills.ts';

/**
 * A turn about `about` works (loads a skill: progress, which every platform shows with its Stop button), then
 * waits in its next model call until the test lets it go. Any other message is answered at once.
 */
function holdTurnAbout(ctx: ContractContext, about: string): void {
  ctx.anthropic.setBrain(async (req) => {
    const text = lastUserText(req);
    if (text === about) return toolUseReply('load_skill', { skill_id: NOTES_SKILL.id });
    if (text === undefined) {
      await ctx.held.hold();
      return textReply(`finished: ${about}`);
    }
    return textReply(`answered: ${text}`);
  });
}

/** The slow script's process, seen from the host once it runs. */
async function slowScriptPid(): Promise<number> {
  let pid: number | undefined;
  await expect.poll(async () => (pid = (await hostPidsWith(SLOW_SLEEP))[0]), { timeout: 15_000, interval: 20 }).toBeDefined();
  return pid as number;
}

export function stopScenarios(ctx: ContractContext): void {
  it('the Stop button ends a running turn at once: no answer comes, the button goes, and the message waiting behind it is answered', async () => {
    holdTurnAbout(ctx, 'write a long essay');
    const chat = await ctx.driver.mention('alice', 'write a long essay');
    await expect.poll(() => ctx.held.count, { timeout: 15_000 }).toBe(1);
    // Waits behind the running turn; a stop must not.
    await chat.say('alice', 'and a short one after');
    await chat.clickStop('alice');
    await chat.waitForStopped('alice');
    await chat.waitForAnswer('answered: and a short one after');
    // The stopped turn's model call returns now: it must still not answer.
    ctx.held.releaseAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(chat.answers()).toEqual(['answered: and a short one after']);
    expect(chat.hasStopButton()).toBe(false);
  });

  it('"stop" typed in the conversation ends a running script with its processes, and nothing is answered', async () => {
    ctx.anthropic.setBrain((req) => (lastToolResult(req) ? textReply('the job finished') : toolUseReply('load_skill', { skill_id: SLOW_SKILL.id })));
    const chat = await ctx.driver.mention('alice', 'run the slow job');
    const question = await chat.waitForQuestion();
    await question.click('alice', 'yes_once');
    const pid = await slowScriptPid();

    await chat.say('alice', 'stop');
    await chat.waitForStopped('alice');
    await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    expect(chat.answers()).toEqual([]);
  });

  it('"@bot stop" during an open question closes it as not run, and the turn answers nothing more', async () => {
    ctx.anthropic.setBrain((req) => (lastToolResult(req) ? textReply('after the question') : toolUseReply('load_skill', { skill_id: REPORT_SKILL.id })));
    const chat = await ctx.driver.mention('alice', 'how full is the disk?');
    const question = await chat.waitForQuestion();

    await chat.say('alice', 'stop', { mention: true });
    await chat.waitForStopped('alice');
    await expect.poll(() => question.isOpen(), { timeout: 10_000 }).toBe(false);
    expect(question.text()).toMatch(/not run/i);
    expect(chat.answers()).toEqual([]);
  });

  it('refuses a stranger privately, by button or by "stop", and the turn goes on to its answer', async () => {
    holdTurnAbout(ctx, 'count to ten');
    const chat = await ctx.driver.mention('alice', 'count to ten');
    await expect.poll(() => ctx.held.count, { timeout: 15_000 }).toBe(1);
    await chat.clickStop('bob');
    await chat.waitForPrivateNote('bob', STOP_NOT_ALLOWED_TEXT);
    await chat.say('bob', 'stop');
    await chat.waitForPrivateNote('bob', STOP_NOT_ALLOWED_TEXT);
    expect(chat.hasStopButton()).toBe(true);

    ctx.held.releaseAll();
    await chat.waitForAnswer('finished: count to ten');
    // Bob's "stop" was a request, not a message for the model.
    expect(chat.answers()).toEqual(['finished: count to ten']);
  });
}
