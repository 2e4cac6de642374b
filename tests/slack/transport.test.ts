// Signatures, acknowledgement before the work, redelivery, and the Web API's 429 and 5xx.
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeSlack, slackSignature } from '../fakes/slack.ts';
import { ALICE, CHANNEL, repliesIn, type SlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;

// A workspace without AI streaming: answers arrive through the progress message's edits (the fallback).
useSlackBot((started) => ({ slack, anthropic, bot } = started), { slack: { refuseStreaming: 'feature_not_enabled' }, anthropic: { brain: () => textReply('pong') } });
afterEach(() => anthropic.setBrain(() => textReply('pong')));

const mentionText = (slackFake: FakeSlack, text: string): string => `<@${slackFake.info.botUserId}> ${text}`;

describe('Slack transport', () => {
  it('refuses a request with a bad signature: 401, and no reply', async () => {
    const requests = anthropic.requests.length;
    const posts = slack.messages.length;
    const response = await bot.sender.mention(
      { channel: CHANNEL, user: ALICE, text: mentionText(slack, 'forged') },
      { signature: slackSignature('not-the-secret', Math.floor(Date.now() / 1000), '{}') },
    );
    expect(response.status).toBe(401);
    await delay(300);
    expect(anthropic.requests.length).toBe(requests);
    expect(slack.messages.length).toBe(posts);
  });

  it('refuses a correctly signed request with a stale timestamp: 401, and no reply', async () => {
    const requests = anthropic.requests.length;
    const posts = slack.messages.length;
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const response = await bot.sender.mention({ channel: CHANNEL, user: ALICE, text: mentionText(slack, 'replayed') }, { timestamp: sixMinutesAgo });
    expect(response.status).toBe(401);
    await delay(300);
    expect(anthropic.requests.length).toBe(requests);
    expect(slack.messages.length).toBe(posts);
  });

  it('answers the URL verification Slack sends when the Request URL is saved', async () => {
    const response = await bot.sender.send(JSON.stringify({ token: 'x', challenge: 'challenge-123', type: 'url_verification' }), 'application/json');
    expect(response.status).toBe(200);
    expect(response.text).toContain('challenge-123');
  });

  it('acknowledges at once and does the work after the acknowledgement', async () => {
    anthropic.setBrain(async () => {
      await delay(1500);
      return textReply('slow answer');
    });
    const ts = bot.sender.nextTs();
    const response = await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mentionText(slack, 'take your time') });
    expect(response.status).toBe(200);
    // The acknowledgement came back while the turn was still waiting on Claude.
    expect(repliesIn(slack, CHANNEL, ts).some((message) => message.text === 'slow answer')).toBe(false);
    await waitForReply(slack, CHANNEL, ts, 'slow answer');
  });

  it('answers once when Slack delivers the same event again (a retry) and Socket-Mode-style replays', async () => {
    const ts = bot.sender.nextTs();
    const message = { channel: CHANNEL, user: ALICE, ts, text: mentionText(slack, 'duplicate me') };
    const first = await bot.sender.mention(message);
    await bot.sender.mention(message, { eventId: first.eventId, retryNum: 1, retryReason: 'http_timeout' });
    await Promise.all([1, 2, 3].map((retryNum) => bot.sender.mention(message, { eventId: first.eventId, retryNum })));
    await waitForReply(slack, CHANNEL, ts, 'pong');
    await delay(300);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
    expect(anthropic.requests.filter((request) => request.rawBody.includes('duplicate me'))).toHaveLength(1);
    expect(await bot.app.metrics.value(bot.app.metrics.dedupeHits, { platform: 'slack' })).toBeGreaterThanOrEqual(4);
  });

  it('answers every redelivery of an accepted message 200 at once, however soon it comes, and replies once', async () => {
    const ts = bot.sender.nextTs();
    const message = { channel: CHANNEL, user: ALICE, ts, text: mentionText(slack, 'quick retries') };
    const first = await bot.sender.mention(message);
    expect(first.status).toBe(200);
    // Retries sooner than Slack's own schedule (a proxy, a replay): no "being handed over" state makes them wait or fail.
    const retries = await Promise.all(
      [1, 2, 3].map((retryNum) => bot.sender.mention(message, { eventId: first.eventId, retryNum, retryReason: 'http_timeout' })),
    );
    expect(retries.map((retry) => retry.status)).toEqual([200, 200, 200]);
    await waitForReply(slack, CHANNEL, ts, 'pong');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
  });

  it('waits out a 429 as Retry-After asks, then posts exactly once', async () => {
    slack.failNext('chat.postMessage', { kind: 'ratelimited', retryAfterS: 1 });
    const callsBefore = slack.calls.length;
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mentionText(slack, 'rate limited') });
    await waitForReply(slack, CHANNEL, ts, 'pong');
    const posts = slack.calls.slice(callsBefore).filter((call) => call.method === 'chat.postMessage');
    expect(posts.map((call) => call.status)).toEqual([429, 200]);
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
  });

  it('never repeats a post that failed with a 5xx (it may have gone through): the answer comes as one new message', async () => {
    slack.failNext('chat.postMessage', { kind: 'http', status: 500 });
    const callsBefore = slack.calls.length;
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mentionText(slack, 'server error') });
    await waitForReply(slack, CHANNEL, ts, 'pong');
    const posts = slack.calls.slice(callsBefore).filter((call) => call.method === 'chat.postMessage');
    // The placeholder's post failed and was not retried; the answer was posted once.
    expect(posts.map((call) => call.status)).toEqual([500, 200]);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
  });
});
