// Socket Mode (SLACK_APP_TOKEN set): the same bot over a WebSocket instead of the HTTP Request URL.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { lastUserText, textReply } from '../fakes/anthropic.ts';
import { commandBody, eventBody, type FakeSlack, messageEvent } from '../fakes/slack.ts';
import { ALICE, CHANNEL, repliesIn, REPORT_SKILL, type SlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let bot: SlackBot;

useSlackBot((started) => ({ slack, bot } = started), {
  slack: { appToken: 'xapp-socket-test' },
  anthropic: { brain: (req) => textReply(`socket echo: ${lastUserText(req) ?? ''}`) },
  env: { SLACK_APP_TOKEN: 'xapp-socket-test', SLACK_SIGNING_SECRET: '' },
});

describe('Slack in Socket Mode', () => {
  it('connects with the app token and is ready', () => {
    expect(slack.socketMode.connections).toBe(1);
    expect(bot.running.ready()).toBe(true);
  });

  it('answers a mention in its thread, once, even when the envelope is replayed', async () => {
    const ts = '1712999999.000001';
    const event = messageEvent('app_mention', { channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> over the socket` });
    const body = eventBody(slack.info, event);
    await slack.socketMode.deliver('events_api', body, { envelopeId: 'env-1' });
    await slack.socketMode.deliver('events_api', body, { envelopeId: 'env-1', retryAttempt: 1 });
    await waitForReply(slack, CHANNEL, ts, 'socket echo: over the socket');
    await delay(300);
    expect(repliesIn(slack, CHANNEL, ts)).toHaveLength(1);
  });

  it('answers /skills privately in the acknowledgement', async () => {
    const ack = await slack.socketMode.deliver('slash_commands', commandBody(slack.info, '/skills', '', { channel: CHANNEL, user: ALICE }));
    expect(ack.response_type).toBe('ephemeral');
    expect(String(ack.text)).toContain(REPORT_SKILL.id);
  });
});
