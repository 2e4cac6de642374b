// Slack's approval card beyond the platform contract (tests/platforms/contract.ts): what it shows, a click from
// another message, clicking twice, expiry, and a restart in between.
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack, PostedMessage } from '../fakes/slack.ts';
import { reportBrain, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, approvalIn, CHANNEL, REPORT_SKILL, type SlackBot, startSlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;
const extraBots: SlackBot[] = [];

useSlackBot((started) => ({ slack, anthropic, skills, bot } = started));
afterEach(async () => {
  await Promise.all(extraBots.splice(0).map((extra) => extra.stop()));
});

/** Alice asks for the report; resolves with the thread root and the question once it is shown. */
async function askForReport(target: SlackBot): Promise<{ ts: string; question: PostedMessage; approvalId: string }> {
  reportBrain(anthropic);
  const ts = target.sender.nextTs();
  await target.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> how full is the disk?` });
  const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
  return { ts, question, approvalId: approvalIdOf(question) };
}

function click(target: SlackBot, user: string, question: PostedMessage, actionId: string, value: string) {
  return target.sender.click({ user, channel: CHANNEL, messageTs: question.ts, threadTs: question.threadTs ?? '', actionId, value });
}

const hasButtons = (message: PostedMessage): boolean => JSON.stringify(message.blocks ?? []).includes('"actions"');
const ephemeralsFor = (user: string) => slack.ephemerals.filter((entry) => entry.user === user);

describe('Slack approvals', () => {
  it('shows what will run, who asked, and three buttons carrying the approval id', async () => {
    const { ts, question, approvalId } = await askForReport(bot);
    const blocks = JSON.stringify(question.blocks);
    expect(question.threadTs).toBe(ts);
    expect(blocks).toContain(REPORT_SKILL.id);
    expect(blocks).toContain('scripts/report.sh');
    expect(blocks).toMatch(/content `[0-9a-f]{12}`/);
    expect(blocks).toContain(`<@${ALICE}>`);
    const actions = (question.blocks ?? []).find((block) => (block as { type: string }).type === 'actions') as { elements: Array<{ action_id: string; value: string }> };
    expect(actions.elements.map((element) => element.action_id)).toEqual(['hitl_yes_once', 'hitl_yes_in_session', 'hitl_no']);
    expect(actions.elements.every((element) => element.value === approvalId)).toBe(true);
    await click(bot, ALICE, question, 'hitl_no', approvalId);
    await waitForReply(slack, CHANNEL, ts, 'the script did not run');
  });

  it('runs the script after the requester clicks yes, and updates the question in place', async () => {
    const { ts, question, approvalId } = await askForReport(bot);
    const response = await click(bot, ALICE, question, 'hitl_yes_once', approvalId);
    expect(response.status).toBe(200);
    await waitForReply(slack, CHANNEL, ts, 'the script ran');
    expect(hasButtons(question)).toBe(false);
    expect(JSON.stringify(question.blocks)).toContain(`Approved once by <@${ALICE}>`);
    expect(question.edits).toHaveLength(1);
  });

  it('a click whose payload points at another message changes nothing, and the clicker is told privately', async () => {
    const { ts, question, approvalId } = await askForReport(bot);
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalId });
    await slack.waitFor(() => ephemeralsFor(ALICE).find((entry) => entry.text.includes('does not belong')), { what: 'the note about another message' });
    expect(hasButtons(question)).toBe(true);
    expect(question.edits).toHaveLength(0);
    await click(bot, ALICE, question, 'hitl_no', approvalId);
    await waitForReply(slack, CHANNEL, ts, 'the script did not run');
    expect(JSON.stringify(question.blocks)).toContain(`Declined by <@${ALICE}>`);
  });

  it('counts only the first of two clicks; the second is told the approval is closed', async () => {
    const { ts, question, approvalId } = await askForReport(bot);
    await click(bot, ALICE, question, 'hitl_yes_once', approvalId);
    await waitForReply(slack, CHANNEL, ts, 'the script ran');
    const before = ephemeralsFor(ALICE).length;
    await click(bot, ALICE, question, 'hitl_no', approvalId);
    const told = await slack.waitFor(() => ephemeralsFor(ALICE).slice(before).find((entry) => entry.text.includes('already closed')), { what: 'the already-closed note' });
    expect(told.text).toContain('Approved once');
    expect(question.edits).toHaveLength(1);
    expect(JSON.stringify(question.blocks)).toContain('Approved once');
  });

  it('shows an unanswered question as expired, and a late click changes nothing', async () => {
    const quick = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { APPROVAL_TIMEOUT_MS: '800' } });
    extraBots.push(quick);
    const { ts, question, approvalId } = await askForReport(quick);
    await waitForReply(slack, CHANNEL, ts, 'the script did not run');
    expect(hasButtons(question)).toBe(false);
    expect(JSON.stringify(question.blocks)).toContain('Expired: nobody answered in time');
    await click(quick, ALICE, question, 'hitl_yes_once', approvalId);
    await slack.waitFor(() => ephemeralsFor(ALICE).find((entry) => entry.text.includes('already closed') && entry.text.includes('Expired')), { what: 'the expired note' });
    expect(question.edits).toHaveLength(1);
  });

  it('after a restart, the old question shows as expired and its buttons change nothing; the message is taken up again and asks anew', async () => {
    const storeUrl = `sqlite://${join(skills.dir, 'restart.sqlite')}`;
    const first = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl });
    const { ts, question, approvalId } = await askForReport(first);
    // Stopping expires the open question and says so in its message.
    await first.stop();
    await slack.waitFor(() => !hasButtons(question), { what: 'the question to be marked expired' });
    expect(JSON.stringify(question.blocks)).toContain('the bot restarted or shut down');

    const second = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl });
    extraBots.push(second);
    // The unanswered message is still queued: the restarted bot runs it again, and asks again.
    const again = await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => message !== question && hasButtons(message) && JSON.stringify(message.blocks).includes('hitl_')), {
      what: 'the question asked again',
    });
    await click(second, ALICE, question, 'hitl_yes_once', approvalId);
    await slack.waitFor(() => ephemeralsFor(ALICE).find((entry) => entry.text.includes('already closed') && entry.text.includes('restarted')), { what: 'the expired note' });
    await delay(200);
    // The old click decided nothing: the old question is as it was left, the new one still open.
    expect(question.edits).toHaveLength(1);
    expect(hasButtons(again)).toBe(true);
    await click(second, ALICE, again, 'hitl_no', approvalIdOf(again));
    await waitForReply(slack, CHANNEL, ts, 'the script did not run');
  });

  it('never cuts what will run: a command too long for the card comes attached in full, invisible characters named', async () => {
    const args = [...Array.from({ length: 96 }, (_, i) => `--table=customers_archive_${i}_partition`), '--dry\u200B-run', '--drop-table', 'customers'];
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return toolUseReply('run_skill_script', { skill_id: REPORT_SKILL.id, script: 'scripts/report.sh', args });
      return textReply(result.content.includes('disk used: 42%') ? 'the script ran' : 'the script did not run');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> archive everything` });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    const approvalId = approvalIdOf(question);
    const file = slack.uploads.find((candidate) => candidate.threadTs === ts);
    expect(file).toMatchObject({ channel: CHANNEL, name: `approval-${approvalId}.txt` });
    expect(file?.bytes.toString('utf8')).toContain('"--table=customers_archive_95_partition" "--dry<U+200B>-run" "--drop-table" "customers"');
    expect(file?.bytes.toString('utf8')).toContain('"Yes, for this thread" covers runs of disk-report at this version');
    // The card says where the whole text is and shows no partial command to be trusted.
    const blocks = JSON.stringify(question.blocks);
    expect(blocks).toContain(`attached in full in this thread as \`approval-${approvalId}.txt\``);
    expect(blocks).not.toContain('--table=customers_archive_0_partition');
    expect((file?.completedAt ?? Infinity) <= question.postedAt).toBe(true);
    await click(bot, ALICE, question, 'hitl_no', approvalId);
    await waitForReply(slack, CHANNEL, ts, 'the script did not run');
  });

  it('shows a short command whole on the card, with invisible characters named', async () => {
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return toolUseReply('run_skill_script', { skill_id: REPORT_SKILL.id, script: 'scripts/report.sh', args: ['--dry\u200B-run', 'a\u2028b'] });
      return textReply(result.content.includes('disk used: 42%') ? 'the script ran' : 'the script did not run');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> dry run please` });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    const blocks = JSON.stringify(question.blocks);
    expect(blocks).toContain('\\"--dry<U+200B>-run\\" \\"a<U+2028>b\\"'.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    expect(blocks).not.toContain('\\u200b-run');
    expect(slack.uploads.some((candidate) => candidate.threadTs === ts)).toBe(false);
    await click(bot, ALICE, question, 'hitl_no', approvalIdOf(question));
    await waitForReply(slack, CHANNEL, ts, 'the script did not run');
  });
});
