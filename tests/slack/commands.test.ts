// `/skills` and `/skill`, end to end through the real Bolt over HTTP.
import { describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, textReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { ALICE, CHANNEL, HIDDEN_SKILL, NOTES_SKILL, REPORT_SKILL, type SlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let bot: SlackBot;

useSlackBot((started) => ({ slack, anthropic, bot } = started));

const ephemeralText = (json: unknown): string => {
  const body = json as { response_type?: string; text?: string };
  expect(body.response_type).toBe('ephemeral');
  return body.text ?? '';
};

describe('Slack slash commands', () => {
  it('/skill refuses a user-invocable: false skill as it refuses an unknown one', async () => {
    const response = await bot.sender.command('/skill', HIDDEN_SKILL.id, { channel: CHANNEL, user: ALICE });
    expect(ephemeralText(response.json)).toContain(`No skill \`${HIDDEN_SKILL.id}\` is available in this channel.`);
  });

  it('/skills lists the skills of the channel, privately, in the acknowledgement', async () => {
    const posts = slack.messages.length;
    const response = await bot.sender.command('/skills', '', { channel: CHANNEL, user: ALICE });
    expect(response.status).toBe(200);
    const text = ephemeralText(response.json);
    expect(text).toContain(`\`${REPORT_SKILL.id}\``);
    expect(text).toContain(`\`${NOTES_SKILL.id}\``);
    expect(text).toContain('Report disk usage of the project.');
    // Claude Code's argument-hint is shown; a user-invocable: false skill is not offered.
    expect(text).toContain(`\`${NOTES_SKILL.id}\` [commits]: Write release notes`);
    expect(text).not.toContain(HIDDEN_SKILL.id);
    // Nothing was posted to the channel for everyone.
    expect(slack.messages.length).toBe(posts);
  });

  it('/skill ID args posts who asked for what as a root message and runs the skill in its thread', async () => {
    let asked = '';
    anthropic.setBrain((req) => {
      asked = JSON.stringify(req.messages);
      return textReply(`notes written from: ${lastUserText(req)?.includes('abc123') ? 'abc123' : '?'}`);
    });
    const response = await bot.sender.command('/skill', `${NOTES_SKILL.id} commits abc123`, { channel: CHANNEL, user: ALICE });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    const root = await slack.waitFor(() => slack.messages.find((message) => message.channel === CHANNEL && message.threadTs === undefined && message.text.includes(NOTES_SKILL.id)), {
      what: 'the root message',
    });
    expect(root.text).toBe(`<@${ALICE}> asked for *${NOTES_SKILL.id}*: commits abc123`);
    await waitForReply(slack, CHANNEL, root.ts, 'notes written from: abc123');
    // The explicit skill's instructions reached Claude.
    expect(asked).toContain('Group commits into Features and Fixes');
  });

  it('/skill with an unknown id answers privately with the closest ids, and runs nothing', async () => {
    const requests = anthropic.requests.length;
    const response = await bot.sender.command('/skill', 'release-note please', { channel: CHANNEL, user: ALICE });
    const text = ephemeralText(response.json);
    expect(text).toContain('No skill `release-note`');
    expect(text).toContain(`\`${NOTES_SKILL.id}\``);
    expect(anthropic.requests.length).toBe(requests);
  });

  it('/skill without an id explains the usage and the @mention way inside threads', async () => {
    const response = await bot.sender.command('/skill', '', { channel: CHANNEL, user: ALICE });
    const text = ephemeralText(response.json);
    expect(text).toContain('/skill ID [args]');
    expect(text).toContain('mention me: `@skillbot /skill ID [args]`');
  });

  it('/skill in a channel the bot is not in says so privately through the response_url', async () => {
    slack.refuseChannel('C0SECRET', 'not_in_channel');
    const responseUrl = slack.responseUrl();
    await bot.sender.command('/skill', NOTES_SKILL.id, { channel: 'C0SECRET', user: ALICE, responseUrl });
    const answer = await slack.waitFor(() => slack.responses.find((entry) => responseUrl.endsWith(entry.id)), { what: 'the response_url answer' });
    expect(answer.body.response_type).toBe('ephemeral');
    expect(String(answer.body.text)).toContain('/invite');
  });
});
