// "Yes, for this routine" through the real Slack launcher, between the Slack and Anthropic fakes: each run of a
// routine is a new thread, yet the owner's answer on the first run's card covers the same script in later runs;
// a changed script (new content hash) and another routine ask again, and removing the routine revokes the grant.
// The scheduler's clock runs 60 times faster (a minute is a second); pause/resume pick which ticks run.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PostedMessage } from '../fakes/slack.ts';
import { reportBrain } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, approvalIn, CHANNEL, commandAnswer, REPORT_SKILL, type SlackSetup, useSlackBot, waitForReply } from '../slack/harness.ts';

let setup: SlackSetup;
useSlackBot((ready) => (setup = ready), { env: { ROUTINES_CLOCK_SPEED: '60', ROUTINES_CLOCK_ORIGIN: String(Date.now()), ROUTINE_TICK_MS: '100' } });

const command = (text: string) => commandAnswer(setup, '/routine', text, { channel: CHANNEL, user: ALICE });

const rootsOf = (id: string): PostedMessage[] =>
  setup.slack.messages.filter((message) => message.channel === CHANNEL && message.threadTs === undefined && message.text.startsWith(`Routine ${id} `));

/** Lets the routine run once more: resumed until a new run's root message is posted, then paused again. */
async function nextRun(id: string, resume = true): Promise<PostedMessage> {
  const before = rootsOf(id).length;
  if (resume) expect(await command(`resume ${id}`)).toBe(`Routine \`${id}\` resumed.`);
  const root = await setup.slack.waitFor(() => rootsOf(id)[before], { what: `run ${before + 1} of routine ${id}` });
  expect(await command(`pause ${id}`)).toBe(`Routine \`${id}\` paused.`);
  return root;
}

const question = (root: PostedMessage) => setup.slack.waitFor(() => approvalIn(setup.slack, CHANNEL, root.ts), { what: 'the approval card' });

function click(card: PostedMessage, actionId: string) {
  return setup.bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs ?? '', actionId, value: approvalIdOf(card) });
}

const addRoutine = async (): Promise<string> => /`(r-[0-9a-f]{8})`/.exec(await command('add every minute :: report the disk usage'))?.[1] ?? '';

describe('"yes, for this routine"', () => {
  it('covers the same script in later runs of that routine only, until the script changes or the routine goes', async () => {
    const { slack, skills, bot } = setup;
    reportBrain(setup.anthropic);
    const id = await addRoutine();
    expect(id).not.toBe('');

    // Run 1 asks in its own thread; the card offers the routine, with the contract's button ids.
    const first = await nextRun(id, false);
    const card = await question(first);
    const blocks = JSON.stringify(card.blocks);
    expect(blocks).toContain('Yes, for this routine');
    expect(blocks).toContain(`every run of routine ${id}`);
    expect(blocks).toContain('hitl_yes_in_session');
    await click(card, 'hitl_yes_in_session');
    await waitForReply(slack, CHANNEL, first.ts, 'the script ran');
    await slack.waitFor(() => JSON.stringify(card.blocks).includes(`Approved for this routine by <@${ALICE}>`) || undefined, { what: 'the card marked approved' });

    // Run 2, a new thread: the same script runs without a card.
    const second = await nextRun(id);
    await waitForReply(slack, CHANNEL, second.ts, 'the script ran');
    expect(approvalIn(slack, CHANNEL, second.ts)).toBeUndefined();

    // The script changed (a new content hash): asked again.
    await writeFile(join(skills.skillsRoot, REPORT_SKILL.name, 'scripts/report.sh'), '#!/bin/sh\necho "disk used: 42% (v2)"\n');
    const third = await nextRun(id);
    await click(await question(third), 'hitl_no');
    await waitForReply(slack, CHANNEL, third.ts, 'the script did not run');

    // Another routine of the same owner, same script: asked again.
    const other = await addRoutine();
    const otherRun = await nextRun(other, false);
    await click(await question(otherRun), 'hitl_no');
    await waitForReply(slack, CHANNEL, otherRun.ts, 'the script did not run');

    // Removing the routine takes its grant with it.
    expect((await bot.app.grants.list()).some((grant) => grant.chatId === `routine:${id}`)).toBe(true);
    expect(await command(`remove ${id}`)).toBe(`Routine \`${id}\` removed.`);
    expect(await command(`remove ${other}`)).toBe(`Routine \`${other}\` removed.`);
    expect((await bot.app.grants.list()).some((grant) => grant.chatId === `routine:${id}`)).toBe(false);
  });
});
