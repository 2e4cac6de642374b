// Slack as an AI app, end to end through Bolt against the fake: streamed answers (and the fallback where a
// workspace refuses streaming), the assistant thread's status, title and suggested prompts, the Home tab with its
// Revoke buttons, the Stop button on a running turn, and "@skillbot /skill …" / "@skillbot skills" in threads.
import { describe, expect, it } from 'vitest';
import { grantKey } from '../../src/approvals/grants.ts';
import { type FakeAnthropic, lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack, PostedMessage } from '../fakes/slack.ts';
import { ALICE, approvalIdOf, approvalIn, BOB, CHANNEL, DM, HIDDEN_SKILL, NOTES_SKILL, repliesIn, REPORT_SKILL, type SlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;

// Deltas a little apart, as a model writes: the stream then takes several calls.
useSlackBot((started) => ({ slack, anthropic, bot } = started), { anthropic: { chunkDelayMs: 15 } });

const ANSWER = 'Here is the plan:\n\n1. **Check** the logs <!channel>\n2. Restart the worker\n3. Watch the graphs for ten minutes.';
const callsOf = (method: string) => slack.calls.filter((call) => call.method === method);
const streamedIn = (channel: string, ts: string): PostedMessage | undefined =>
  slack.thread(channel, ts).find((message) => message.stream !== undefined);
const statuses = (channel: string, threadTs: string) =>
  slack.assistantCalls.filter((call) => call.method === 'setStatus' && call.channel === channel && call.threadTs === threadTs).map((call) => call.text);

describe('Slack as an AI app', () => {
  it('streams the answer as it is written into the one message that offered Stop from the start, then leaves the answer alone in it', async () => {
    anthropic.setBrain(() => textReply(ANSWER));
    const ts = bot.sender.nextTs();
    const starts = callsOf('chat.startStream').length;
    const deletes = callsOf('chat.delete').length;
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> what should I do?` });
    const escaped = ANSWER.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const answered = await slack.waitFor(() => {
      const message = streamedIn(CHANNEL, ts);
      return message?.stream === 'stopped' && message.blocks === undefined && message;
    }, { what: 'the answer, its Stop button gone' });
    expect(answered.text).toBe(escaped);
    // Every version Slack showed is a beginning of the answer, growing to all of it.
    const shown = [...answered.edits.map((edit) => edit.text), answered.text];
    expect(new Set(shown).size).toBeGreaterThan(2);
    for (let index = 1; index < shown.length; index += 1) {
      expect(escaped.startsWith(shown[index - 1] ?? '')).toBe(true);
      expect((shown[index] ?? '').length).toBeGreaterThanOrEqual((shown[index - 1] ?? '').length);
    }
    expect(callsOf('chat.startStream').length).toBe(starts + 1);
    const start = callsOf('chat.startStream').at(-1);
    expect(start?.params).toMatchObject({ channel: CHANNEL, thread_ts: ts, recipient_user_id: ALICE, recipient_team_id: slack.info.teamId });
    // The stream began with the Stop button for this turn, before any text.
    expect(String(start?.params.chunks)).toMatch(/^\[\{"type":"blocks","blocks":\[\{"type":"actions".*"action_id":"turn_stop","text":\{"type":"plain_text","text":"Stop"\},"value":"[^"]+"/);
    // One message, nothing posted beside it or deleted.
    expect(slack.thread(CHANNEL, ts)).toEqual([answered]);
    expect(callsOf('chat.postMessage').filter((call) => call.params.thread_ts === ts)).toHaveLength(0);
    expect(callsOf('chat.delete').length).toBe(deletes);
  });

  it('shows the assistant status while it works, including while an approval waits, and clears it when done', async () => {
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return toolUseReply('load_skill', { skill_id: REPORT_SKILL.id });
      return textReply(result.content.includes('disk used: 42%') ? 'the script ran' : 'the script did not run');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'how full is the disk?', channelType: 'im' });
    const question = await slack.waitFor(() => approvalIn(slack, DM, ts), { what: 'the approval question' });
    await slack.waitFor(() => statuses(DM, ts).some((status) => status.startsWith('Waiting for approval')), { what: 'the waiting status' });
    await bot.sender.click({ user: ALICE, channel: DM, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
    await slack.waitFor(() => streamedIn(DM, ts)?.stream === 'stopped', { what: 'the answer' });
    expect(streamedIn(DM, ts)?.text).toBe('the script ran');
    await slack.waitFor(() => statuses(DM, ts).at(-1) === '', { what: 'the status to clear' });
    const seen = statuses(DM, ts);
    expect(seen[0]).toBe('is working…');
    expect(seen).toContain(`Loading ${REPORT_SKILL.id}…`);
    expect(seen).toContain('Waiting for approval to run scripts/report.sh…');
    const titles = slack.assistantCalls.filter((call) => call.method === 'setTitle' && call.threadTs === ts);
    expect(titles.map((call) => call.text)).toEqual(['how full is the disk?']);
  });

  it('suggests prompts from the skills a person may run, with their argument hints, when an assistant thread opens', async () => {
    const threadTs = bot.sender.nextTs();
    await bot.sender.event({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: ALICE, channel_id: DM, thread_ts: threadTs, context: { channel_id: CHANNEL, team_id: slack.info.teamId } },
      event_ts: threadTs,
    });
    const suggested = await slack.waitFor(
      () => slack.assistantCalls.find((call) => call.method === 'setSuggestedPrompts' && call.threadTs === threadTs),
      { what: 'suggested prompts' },
    );
    expect(suggested.channel).toBe(DM);
    expect(suggested.prompts).toEqual([
      { title: `${NOTES_SKILL.id} [commits]`, message: `/skill ${NOTES_SKILL.id}` },
      { title: REPORT_SKILL.id, message: `/skill ${REPORT_SKILL.id}` },
    ]);
  });

  it('agent_view: suggests the same prompts for the DM when the person opens the messages tab, and publishes no Home tab for it', async () => {
    const views = slack.views.length;
    const calls = slack.assistantCalls.length;
    const opened = await bot.sender.event({ type: 'app_home_opened', user: ALICE, channel: DM, tab: 'messages', event_ts: bot.sender.nextTs() });
    expect(opened.status).toBe(200);
    const suggested = await slack.waitFor(
      () => slack.assistantCalls.slice(calls).find((call) => call.method === 'setSuggestedPrompts'),
      { what: 'suggested prompts for the DM' },
    );
    expect(suggested).toMatchObject({ channel: DM, text: 'Try a skill (or just ask):' });
    expect(suggested.threadTs).toBeUndefined();
    expect(suggested.prompts).toEqual([
      { title: `${NOTES_SKILL.id} [commits]`, message: `/skill ${NOTES_SKILL.id}` },
      { title: REPORT_SKILL.id, message: `/skill ${REPORT_SKILL.id}` },
    ]);
    // The person looks at a channel: acknowledged; the DM's prompts stay the DM's, nothing is posted or published.
    const posted = slack.messages.length;
    const changed = await bot.sender.event({ type: 'app_context_changed', user: ALICE, channel: DM, context: { entities: [{ type: 'slack#/types/channel_id', value: CHANNEL }] }, event_ts: bot.sender.nextTs() });
    expect(changed.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.assistantCalls.slice(calls)).toHaveLength(1);
    expect(slack.messages.length).toBe(posted);
    expect(slack.views.length).toBe(views);
  });

  it('publishes a Home tab with the skills and the person’s own grants, and a Revoke click removes the grant', async () => {
    const grants = bot.app.grants;
    const aliceChat = `slack:${slack.info.teamId}:${CHANNEL}/1700000000.000100`;
    await grants.add(grantKey(`slack:${slack.info.teamId}:${CHANNEL}`, aliceChat, REPORT_SKILL.id, 'a'.repeat(64), ALICE), ALICE);
    await grants.add(grantKey(`slack:${slack.info.teamId}:${CHANNEL}`, `${aliceChat}9`, REPORT_SKILL.id, 'b'.repeat(64), BOB), BOB);
    const before = slack.views.length;
    await bot.sender.event({ type: 'app_home_opened', user: ALICE, channel: DM, tab: 'home', event_ts: bot.sender.nextTs() });
    const home = await slack.waitFor(() => slack.views[before], { what: 'the Home tab' });
    const text = JSON.stringify(home.view.blocks);
    expect(home.userId).toBe(ALICE);
    expect(text).toContain(`\`${NOTES_SKILL.id}\`* [commits]`);
    expect(text).toContain('Write release notes from a list of commits.');
    expect(text).not.toContain(HIDDEN_SKILL.id);
    // Alice's grant with its Revoke button; Bob's is not hers to see.
    const revoke = (home.view.blocks as Array<{ accessory?: { action_id: string; value: string } }>).flatMap((block) => (block.accessory ? [block.accessory] : []));
    expect(revoke).toEqual([{ type: 'button', action_id: 'home_revoke_grant', text: { type: 'plain_text', text: 'Revoke' }, value: JSON.stringify({ chatId: aliceChat, skillId: REPORT_SKILL.id, requesterId: ALICE }) }]);

    await bot.sender.homeClick({ user: ALICE, actionId: 'home_revoke_grant', value: revoke[0]?.value ?? '' });
    const after = await slack.waitFor(() => slack.views[before + 1], { what: 'the Home tab again' });
    expect(JSON.stringify(after.view.blocks)).not.toContain('home_revoke_grant');
    expect((await grants.list()).map((grant) => grant.grantedBy)).toEqual([BOB]);
  });

  it('takes "@skillbot /skill ID args" and "@skillbot skills" in a thread as the slash commands', async () => {
    let asked = '';
    anthropic.setBrain((req) => {
      asked = JSON.stringify(req.messages);
      return textReply('notes drafted');
    });
    const root = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts: root, text: `<@${slack.info.botUserId}> skills` });
    const list = await slack.waitFor(() => repliesIn(slack, CHANNEL, root).find((message) => message.text.includes('Skills in this channel')), { what: 'the list' });
    expect(list.text).toContain(`\`${NOTES_SKILL.id}\` [commits]`);

    await bot.sender.mention({ channel: CHANNEL, user: ALICE, threadTs: root, ts: bot.sender.nextTs(), text: `<@${slack.info.botUserId}> /skill ${NOTES_SKILL.id} abc123 def456` });
    await slack.waitFor(() => slack.thread(CHANNEL, root).find((message) => message.text === 'notes drafted' && message.stream === 'stopped'), { what: 'the answer' });
    expect(asked).toContain('Group commits into Features and Fixes.');
    expect(asked).toContain('ARGUMENTS: abc123 def456');
  });

  it('keeps a stream cut off by a failed model call as the one message: the retried answer is written over it', async () => {
    // The cut stream says something else (the fake's own words) than the retried answer.
    anthropic.setBrain(() => textReply('A shorter plan: restart the worker.'));
    anthropic.failNext({ kind: 'cut', afterDeltas: 3 });
    const ts = bot.sender.nextTs();
    const deletes = callsOf('chat.delete').length;
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> again please` });
    await slack.waitFor(() => slack.thread(CHANNEL, ts).length === 1 && slack.thread(CHANNEL, ts)[0]?.text === 'A shorter plan: restart the worker.', {
      what: 'the retried answer in the cut one\'s place',
    });
    // One message was started for the answer, none posted beside it, and it was never deleted.
    expect(callsOf('chat.startStream').filter((call) => call.params.thread_ts === ts)).toHaveLength(1);
    expect(callsOf('chat.postMessage').filter((call) => call.params.thread_ts === ts && !String(call.params.blocks ?? '').includes('turn_stop'))).toHaveLength(0);
    expect(callsOf('chat.delete').slice(deletes).filter((call) => call.params.ts !== undefined && call.params.ts === slack.thread(CHANNEL, ts)[0]?.ts)).toHaveLength(0);
  });

  it('goes on in the same message, edited, when Slack ends the stream while an approval waits; the steps show as task cards', async () => {
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return { content: [{ type: 'text', text: 'Let me check the disk.' }, ...toolUseReply('load_skill', { skill_id: REPORT_SKILL.id }).content] };
      return textReply(result.content.includes('disk used: 42%') ? 'The disk is 42% full.' : 'the script did not run');
    });
    slack.expireIdleStreams(400);
    try {
      const ts = bot.sender.nextTs();
      const deletes = callsOf('chat.delete').length;
      await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> how full is the disk?` });
      const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
      // While the question waits, the message shows the sentence, the steps as task cards, and Stop.
      const turn = await slack.waitFor(() => {
        const message = slack.thread(CHANNEL, ts)[0];
        return message?.tasks?.at(-1)?.title === 'Waiting for approval to run scripts/report.sh…' && message;
      }, { what: 'the waiting step in the turn message' });
      expect(turn.text).toBe('Let me check the disk.');
      expect(turn.tasks?.map((task) => [task.title, task.status])).toContainEqual([`Loading ${REPORT_SKILL.id}…`, 'complete']);
      expect(JSON.stringify(turn.blocks)).toContain('turn_stop');
      await new Promise((resolve) => setTimeout(resolve, 600));
      await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
      const answered = await waitForReply(slack, CHANNEL, ts, 'Let me check the disk.\n\nThe disk is 42% full.');
      // The stream had ended by itself: the rest came through edits of the same message.
      expect(answered.ts).toBe(turn.ts);
      expect(callsOf('chat.appendStream').some((call) => call.params.ts === turn.ts && call.error === 'message_not_in_streaming_state')).toBe(true);
      expect(slack.thread(CHANNEL, ts).filter((message) => message !== question)).toEqual([answered]);
      expect(callsOf('chat.postMessage').filter((call) => call.params.thread_ts === ts && !String(call.params.blocks ?? '').includes('hitl_'))).toHaveLength(0);
      expect(callsOf('chat.delete').length).toBe(deletes);
    } finally {
      slack.expireIdleStreams(undefined);
    }
  });

  it('writes the answer as mrkdwn over the streamed message where Slack refuses markdown_text in chat.update', async () => {
    anthropic.setBrain(() => textReply('**Ship it** on Friday.'));
    slack.failNext('chat.update', { kind: 'error', error: 'invalid_arguments' });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> when?` });
    const answered = await waitForReply(slack, CHANNEL, ts, '*Ship it* on Friday.');
    expect(answered.stream).toBe('stopped');
    expect(slack.thread(CHANNEL, ts)).toEqual([answered]);
  });

  it('waits out a rate-limited stream call and goes on in the same message', async () => {
    anthropic.setBrain(() => textReply(ANSWER));
    slack.failNext('chat.appendStream', { kind: 'ratelimited', retryAfterS: 1 });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> slowly please` });
    const escaped = ANSWER.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    await slack.waitFor(() => slack.thread(CHANNEL, ts).length === 1 && slack.thread(CHANNEL, ts)[0]?.text === escaped, { what: 'the whole answer, alone' });
    expect(callsOf('chat.appendStream').some((call) => call.status === 429)).toBe(true);
    expect(callsOf('chat.startStream').filter((call) => call.params.thread_ts === ts)).toHaveLength(1);
    expect(callsOf('chat.postMessage').filter((call) => call.params.thread_ts === ts && !String(call.params.blocks ?? '').includes('turn_stop'))).toHaveLength(0);
  });

  it('refuses "@skillbot /skill" for a skill people may not run, in the thread', async () => {
    const ts = bot.sender.nextTs();
    const requests = anthropic.requests.length;
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> /skill ${HIDDEN_SKILL.id}` });
    const refusal = await slack.waitFor(() => repliesIn(slack, CHANNEL, ts)[0], { what: 'the refusal' });
    expect(refusal.text).toContain(`No skill \`${HIDDEN_SKILL.id}\` is available in this channel.`);
    expect(anthropic.requests.length).toBe(requests);
  });

  it('falls back to edits where the workspace refuses streaming, and remembers it', async () => {
    slack.refuseStreaming('feature_not_enabled');
    anthropic.setBrain(() => textReply('answered without streaming'));
    const starts = callsOf('chat.startStream').length;
    const first = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts: first, text: `<@${slack.info.botUserId}> one` });
    const reply = await waitForReply(slack, CHANNEL, first, 'answered without streaming');
    expect(reply.stream).toBeUndefined();
    expect(repliesIn(slack, CHANNEL, first)).toHaveLength(1);
    const second = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts: second, text: `<@${slack.info.botUserId}> two` });
    await waitForReply(slack, CHANNEL, second, 'answered without streaming');
    // Refused once: the second turn did not try again.
    expect(callsOf('chat.startStream').length).toBe(starts + 1);
  });
});
