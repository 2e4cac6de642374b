// Stopping a turn in Slack beyond the platform contract (tests/platforms/contractStop.ts): "stop" with nothing
// running, and a Stop click reaching the instance that runs the turn.
import { afterEach, describe, expect, it } from 'vitest';
import { NOTHING_RUNNING_TEXT } from '../../adapters/slack/stop.ts';
import { TURN_STOP_ACTION_ID } from '../../adapters/slack/turnControls.ts';
import { type FakeAnthropic, lastUserText, textReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import { heardBrain, HeldCalls, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, CHANNEL, type SlackBot, startSlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;
const extraBots: SlackBot[] = [];
const held = new HeldCalls();

useSlackBot((started) => ({ slack, anthropic, skills, bot } = started));
afterEach(async () => {
  held.releaseAll();
  await Promise.all(extraBots.splice(0).map((extra) => extra.stop()));
});

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;

describe('stopping a turn in Slack', () => {
  it('"Stop!" with nothing running is answered privately', async () => {
    heardBrain(anthropic);
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('count to ten') });
    await waitForReply(slack, CHANNEL, ts, 'heard: count to ten');
    // The answer shows a moment before the turn lets go of the chat.
    await expect.poll(() => bot.app.dispatcher.activeChats).toBe(0);
    await bot.sender.message({ channel: CHANNEL, user: ALICE, threadTs: ts, text: 'Stop!' });
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === ALICE && entry.text === NOTHING_RUNNING_TEXT), { what: 'nothing to stop' });
  });

  it('"stop" typed once the answer shows, before the turn has let go of the chat, is answered privately and stops nothing', async () => {
    heardBrain(anthropic);
    // Writing the streamed answer over without its Stop button waits out a rate limit: the answer shows, the
    // turn is still finishing.
    slack.failNext('chat.update', { kind: 'ratelimited', retryAfterS: 2 });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('tell me a fact') });
    await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => message.text === 'heard: tell me a fact'), { what: 'the streamed answer' });
    expect(bot.app.dispatcher.activeChats).toBe(1);
    await bot.sender.message({ channel: CHANNEL, user: ALICE, threadTs: ts, text: 'stop' });
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === ALICE && entry.text === NOTHING_RUNNING_TEXT && entry.threadTs === ts), {
      what: 'nothing to stop',
    });
    await expect.poll(() => bot.app.dispatcher.activeChats, { timeout: 10_000 }).toBe(0);
    expect(slack.thread(CHANNEL, ts).map((message) => message.text)).toEqual(['heard: tell me a fact']);
  });

  it.runIf(process.env.REDIS_URL)('reaches the instance running the turn from another instance', async () => {
    const url = new URL(process.env.REDIS_URL ?? '');
    url.pathname = '/12';
    const first = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: url.toString() });
    extraBots.push(first);
    const second = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: url.toString() });
    extraBots.push(second);
    anthropic.setBrain(async (req) => {
      await held.hold();
      return textReply(`answered: ${lastUserText(req) ?? ''}`);
    });
    const ts = first.sender.nextTs();
    await first.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('a long story') });
    // Slack shows the Stop button on the placeholder from the start (Discord only from the first progress line).
    const placeholder = await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => JSON.stringify(message.blocks ?? []).includes(TURN_STOP_ACTION_ID)), {
      what: 'the Stop button',
    });
    const turnId = /"value":"([^"]+)"/.exec(JSON.stringify(placeholder.blocks))?.[1] ?? '';
    expect(first.app.dispatcher.activeChats).toBe(1);
    await second.sender.click({ user: ALICE, channel: CHANNEL, messageTs: placeholder.ts, threadTs: ts, actionId: TURN_STOP_ACTION_ID, value: turnId });
    await waitForReply(slack, CHANNEL, ts, `Stopped by <@${ALICE}>.`);
  });
});
