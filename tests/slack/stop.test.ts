// Stopping a running turn from Slack: the Stop button and a "stop" message, during a model stream, a script and
// an approval; a stranger is refused; a stop reaches the instance running the turn.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOTHING_RUNNING_TEXT, STOP_NOT_ALLOWED_TEXT } from '../../adapters/slack/stop.ts';
import { TURN_STOP_ACTION_ID as STOP_ACTION_ID } from '../../adapters/slack/turnControls.ts';
import { type FakeAnthropic, lastToolResult, lastUserText, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../fakes/slack.ts';
import { hostPidsWith, uniqueSleep } from '../exec/skillFolder.ts';
import { ALICE, approvalIn, BOB, CHANNEL, makeSkillsDir, REPORT_SKILL, type SlackBot, startSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let bot: SlackBot;
const extraBots: SlackBot[] = [];
/** Model calls held open by a test; released at the end so the fake's requests finish. */
const held: Array<() => void> = [];

const SLOW_SKILL = 'slow-job';
/** The slow script's `sleep` argument: how the test finds its process from the host (it runs sandboxed). */
const SLEEP = uniqueSleep();

beforeAll(async () => {
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  const dir = join(skills.skillsRoot, SLOW_SKILL);
  await mkdir(join(dir, 'scripts'), { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${SLOW_SKILL}\ndescription: A job that takes a long time.\n---\nRun scripts/slow.sh.\n`);
  // Works for far longer than any test waits.
  await writeFile(join(dir, 'scripts', 'slow.sh'), `#!/bin/sh\nsleep ${SLEEP}\n`);
  await chmod(join(dir, 'scripts', 'slow.sh'), 0o755);
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SCRIPT_TIMEOUT_MS: '600000' } });
});
afterEach(async () => {
  for (const release of held.splice(0)) release();
  await Promise.all(extraBots.splice(0).map((extra) => extra.stop()));
});
afterAll(async () => {
  await bot.stop();
  await slack.close();
  await anthropic.close();
  await skills.remove();
});

/** A model call that answers only when the test lets it (or never, for a stopped turn). */
function hold(): Promise<void> {
  return new Promise((resolve) => held.push(resolve));
}

/** The turn's working message, once it shows the Stop button. */
function stopButtonIn(threadTs: string): Promise<{ message: PostedMessage; turnId: string }> {
  return slack.waitFor(
    () => {
      for (const message of slack.thread(CHANNEL, threadTs)) {
        const actions = (message.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>;
        const button = actions.flatMap((block) => block.elements ?? []).find((element) => element.action_id === STOP_ACTION_ID);
        if (button) return { message, turnId: button.value };
      }
      return undefined;
    },
    { what: 'the Stop button' },
  );
}

function clickStop(target: SlackBot, user: string, threadTs: string, found: { message: PostedMessage; turnId: string }) {
  return target.sender.click({ user, channel: CHANNEL, messageTs: found.message.ts, threadTs, actionId: STOP_ACTION_ID, value: found.turnId });
}

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stopping a turn in Slack', () => {
  it('Stop during the model stream ends the turn at once, says who stopped it, and answers the message that waited', async () => {
    anthropic.setBrain(async (req) => {
      if (lastUserText(req)?.includes('long essay')) await hold();
      return textReply(`answered: ${lastUserText(req) ?? ''}`);
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('write a long essay') });
    const button = await stopButtonIn(ts);
    // Waits behind the running turn; a stop must not.
    await bot.sender.message({ channel: CHANNEL, user: ALICE, threadTs: ts, text: 'and a short one after' });

    await clickStop(bot, ALICE, ts, button);
    const stopped = await waitForReply(slack, CHANNEL, ts, `Stopped by <@${ALICE}>.`);
    expect(stopped.ts).toBe(button.message.ts);
    expect(stopped.blocks).toBeUndefined();
    await waitForReply(slack, CHANNEL, ts, /^answered: and a short one after$/);
    expect(slack.thread(CHANNEL, ts).some((message) => message.text.startsWith('answered: write a long essay'))).toBe(false);
  });

  it('"stop" as a message ends a running script with its processes', async () => {
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return toolUseReply('load_skill', { skill_id: SLOW_SKILL });
      return textReply('the job finished');
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('run the slow job') });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    const approvalId = JSON.stringify(question.blocks).match(/"value":"([^"]+)"/)?.[1] ?? '';
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalId });
    const pid = await waitForPid();
    expect(alive(pid)).toBe(true);

    await bot.sender.message({ channel: CHANNEL, user: ALICE, threadTs: ts, text: 'stop' });
    await waitForReply(slack, CHANNEL, ts, `Stopped by <@${ALICE}>.`);
    await slack.waitFor(() => !alive(pid), { what: 'the script process to end' });
    expect(slack.thread(CHANNEL, ts).some((message) => message.text === 'the job finished')).toBe(false);
  });

  it('"@bot stop" during a pending approval answers it no, by the person who stopped', async () => {
    anthropic.setBrain((req) => (lastToolResult(req) ? textReply('after the question') : toolUseReply('load_skill', { skill_id: REPORT_SKILL.id })));
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('how full is the disk?') });
    await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });

    await bot.sender.mention({ channel: CHANNEL, user: ALICE, threadTs: ts, text: mention('stop') });
    await waitForReply(slack, CHANNEL, ts, `Stopped by <@${ALICE}>.`);
    const question = await slack.waitFor(
      () => {
        const shown = approvalIn(slack, CHANNEL, ts) ?? slack.thread(CHANNEL, ts).find((message) => JSON.stringify(message.blocks ?? []).includes('Declined'));
        return shown && JSON.stringify(shown.blocks ?? []).includes('Declined') ? shown : undefined;
      },
      { what: 'the question closed' },
    );
    expect(JSON.stringify(question.blocks)).toContain(`Declined by <@${ALICE}>`);
    expect(slack.thread(CHANNEL, ts).some((message) => message.text === 'after the question')).toBe(false);
  });

  it('refuses a stranger privately and the turn goes on; "stop" with nothing running is answered privately', async () => {
    let release = () => {};
    anthropic.setBrain(async (req) => {
      await new Promise<void>((resolve) => {
        release = resolve;
        held.push(resolve);
      });
      return textReply(`answered: ${lastUserText(req) ?? ''}`);
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('count to ten') });
    const button = await stopButtonIn(ts);
    await clickStop(bot, BOB, ts, button);
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === BOB && entry.text === STOP_NOT_ALLOWED_TEXT), { what: "Bob's refusal" });
    release();
    await waitForReply(slack, CHANNEL, ts, 'answered: count to ten');

    await bot.sender.message({ channel: CHANNEL, user: ALICE, threadTs: ts, text: 'Stop!' });
    await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === ALICE && entry.text === NOTHING_RUNNING_TEXT), { what: 'nothing to stop' });
  });

  it.runIf(process.env.REDIS_URL)('reaches the instance running the turn from another instance', async () => {
    const url = new URL(process.env.REDIS_URL ?? '');
    url.pathname = '/12';
    const first = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: url.toString() });
    extraBots.push(first);
    const second = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: url.toString() });
    extraBots.push(second);
    anthropic.setBrain(async (req) => {
      await hold();
      return textReply(`answered: ${lastUserText(req) ?? ''}`);
    });
    const ts = first.sender.nextTs();
    await first.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('a long story') });
    const button = await stopButtonIn(ts);
    expect(first.app.dispatcher.activeChats).toBe(1);
    await clickStop(second, ALICE, ts, button);
    await waitForReply(slack, CHANNEL, ts, `Stopped by <@${ALICE}>.`);
  });
});

/** The slow script's process, seen from the host once it runs. */
async function waitForPid(): Promise<number> {
  for (let tries = 0; tries < 750; tries += 1) {
    const [pid] = await hostPidsWith(SLEEP);
    if (pid !== undefined) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the slow script never started');
}
