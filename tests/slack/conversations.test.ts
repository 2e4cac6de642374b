// Mentions, thread replies and DMs, end to end through the real Bolt over HTTP and both fakes, answered without
// streaming (a thread going on with its history is the platform contract's, tests/platforms/contract.ts).
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, lastUserText, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { ALICE, BOB, CHANNEL, DM, NOTES_SKILL, PLACEHOLDER, repliesIn, type SlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;

// A workspace without AI streaming: answers arrive through the progress message's edits (the fallback).
useSlackBot((started) => ({ slack, anthropic, bot } = started), { slack: { refuseStreaming: 'feature_not_enabled' } });
afterEach(() => {
  anthropic.setBrain((req) => textReply(`echo: ${lastUserText(req) ?? ''}`));
});

describe('Slack conversations', () => {
  it('answers an @mention in the thread of that message, without the mention in what Claude reads', async () => {
    anthropic.setBrain((req) => textReply(`echo: ${lastUserText(req) ?? ''}`));
    const ts = bot.sender.nextTs();
    const response = await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> how are you?` });
    expect(response.status).toBe(200);
    const reply = await waitForReply(slack, CHANNEL, ts, 'echo: how are you?');
    expect(reply.threadTs).toBe(ts);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
  });

  it('ignores channel messages without a mention, and threads it does not take part in', async () => {
    const requestsBefore = anthropic.requests.length;
    const postsBefore = slack.messages.length;
    const root = bot.sender.nextTs();
    await bot.sender.message({ channel: CHANNEL, user: ALICE, ts: root, text: 'just chatting with people' });
    await bot.sender.message({ channel: CHANNEL, user: BOB, threadTs: root, text: 'a reply among people' });
    await delay(300);
    expect(anthropic.requests.length).toBe(requestsBefore);
    expect(slack.messages.length).toBe(postsBefore);
  });

  it('answers a DM in the thread of that message', async () => {
    const ts = bot.sender.nextTs();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'hello in private', channelType: 'im' });
    const reply = await waitForReply(slack, DM, ts, 'echo: hello in private');
    expect(reply.threadTs).toBe(ts);
  });

  it('gives one reply for the message + app_mention pair a mention produces', async () => {
    const ts = bot.sender.nextTs();
    const text = `<@${slack.info.botUserId}> only once please`;
    await Promise.all([
      bot.sender.message({ channel: CHANNEL, user: ALICE, ts, text }),
      bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text }),
    ]);
    await waitForReply(slack, CHANNEL, ts, 'echo: only once please');
    await delay(300);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
  });

  it('answers a bare mention with a hint, without asking Claude', async () => {
    const requests = anthropic.requests.length;
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}>` });
    const hint = await slack.waitFor(() => repliesIn(slack, CHANNEL, ts)[0], { what: 'the hint' });
    expect(hint.text).toContain('/skills');
    expect(anthropic.requests.length).toBe(requests);
  });

  it('shows progress in a placeholder, updated at most once a second, which the answer then replaces', async () => {
    anthropic.setBrain(async (req) => {
      if (!lastToolResult(req)) return toolUseReply('load_skill', { skill_id: NOTES_SKILL.id });
      await delay(1500);
      return textReply('notes are ready');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> write the notes` });
    const reply = await waitForReply(slack, CHANNEL, ts, 'notes are ready');
    const shown = [...reply.edits.map((edit) => edit.text), reply.text];
    expect(shown[0]).toBe(PLACEHOLDER);
    // The last progress line before the update went out: loading, then preparing the skill.
    expect(shown).toContain(`_Preparing skill ${NOTES_SKILL.id}…_`);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
    // Update times: every edit after the first post, then the last one.
    const updates = [...reply.edits.slice(1).map((edit) => edit.at), reply.updatedAt ?? 0];
    for (let index = 1; index < updates.length; index += 1) {
      expect((updates[index] ?? 0) - (updates[index - 1] ?? 0)).toBeGreaterThanOrEqual(950);
    }
  });

  it('shows model markdown as mrkdwn and neutralises broadcasts', async () => {
    anthropic.setBrain(() => textReply('## Result\n**done** <!channel> see [docs](https://example.com/a_b)'));
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> format please` });
    const reply = await waitForReply(slack, CHANNEL, ts, /Result/);
    expect(reply.text).toBe('*Result*\n*done* &lt;!channel&gt; see <https://example.com/a_b|docs>');
  });

  it('splits a long answer into several messages under Slack\'s limit, in order', async () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum '.repeat(30).trim()}`);
    anthropic.setBrain(() => textReply(paragraphs.join('\n\n')));
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> write a lot` });
    await slack.waitFor(() => repliesIn(slack, CHANNEL, ts).some((message) => message.text.includes('Paragraph 29:')), { what: 'the last part' });
    const parts = repliesIn(slack, CHANNEL, ts);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.text.length).toBeLessThanOrEqual(4000);
    expect(parts.map((part) => part.text).join('\n\n')).toBe(paragraphs.join('\n\n'));
  });
});
