// Limits per person and budget alerts in Slack (issue 34): a person at their limit on one instance is refused on
// the other (shared Redis), and still after both restart; the world's budget alerts its admins once at 75 % and 95 %.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, NOTES_SKILL, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, type SlackBot, startSlackBot, waitForReply } from '../slack/harness.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) throw new Error('CI=true needs REDIS_URL: the shared-limit test must run, not skip.');

const ADMIN = 'UADMIN';
let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let folder: string;
const bots: SlackBot[] = [];

beforeAll(async () => {
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  folder = await mkdtemp(join(tmpdir(), 'skillbot-limits-'));
  slack.addPerson(ALICE, 'Alice');
  anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
});
afterEach(async () => {
  await Promise.all(bots.splice(0).map((bot) => bot.stop()));
});
afterAll(async () => {
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
  await rm(folder, { recursive: true, force: true });
});

async function start(config: string, storeUrl?: string): Promise<SlackBot> {
  const file = join(folder, `${randomBytes(4).toString('hex')}.yaml`);
  await writeFile(file, config);
  const bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, ...(storeUrl ? { storeUrl } : {}), env: { SKILLBOT_CONFIG: file } });
  bots.push(bot);
  return bot;
}

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;

async function ask(bot: SlackBot, channel: string, text: string): Promise<void> {
  const ts = bot.sender.nextTs();
  await bot.sender.mention({ channel, user: ALICE, ts, text: mention(text) });
  await waitForReply(slack, channel, ts, `heard: ${text}`);
}

describe.runIf(process.env.REDIS_URL)('per-person limits on a shared Redis', () => {
  const url = () => {
    const parsed = new URL(process.env.REDIS_URL ?? '');
    parsed.pathname = '/12';
    return parsed.toString();
  };

  it('a person at their limit on one instance is refused on the other, and still after both restart', async () => {
    // A channel of its own: the shared database outlives the test.
    const channel = `C0LIMIT${randomBytes(3).toString('hex').toUpperCase()}`;
    const config = `defaults:\n  limits: { turnsPerPersonPerHour: 2 }\n`;
    const first = await start(config, url());
    const second = await start(config, url());
    await ask(first, channel, 'one');
    await ask(second, channel, 'two');
    const requests = anthropic.requests.length;
    const notes = () => slack.ephemerals.filter((entry) => entry.user === ALICE && entry.channel === channel);
    await second.sender.mention({ channel, user: ALICE, text: mention('three') });
    const note = await slack.waitFor(() => notes()[0], { what: 'the limit note' });
    expect(note.text).toMatch(/you can ask again in (5[0-9]|60) min/);

    await Promise.all(bots.splice(0).map((bot) => bot.stop()));
    const restarted = await start(config, url());
    await start(config, url());
    await restarted.sender.mention({ channel, user: ALICE, text: mention('four') });
    await slack.waitFor(() => notes()[1], { what: 'the limit note after the restart' });
    await delay(200);
    expect(anthropic.requests.length).toBe(requests);
    const usage = await restarted.sender.command('/usage', '', { channel, user: ALICE });
    expect(JSON.stringify(usage.json)).toContain('questions in the last 60 min: 2 (limit 2)');
  });
});

describe.runIf(process.env.REDIS_URL)('membership changes on a shared Redis', () => {
  it('a user group change delivered to one instance applies on the other at once', async () => {
    const url = new URL(process.env.REDIS_URL ?? '');
    url.pathname = '/12';
    const channel = `C0GROUP${randomBytes(3).toString('hex').toUpperCase()}`;
    const group = `S0${randomBytes(3).toString('hex').toUpperCase()}`;
    const config = `worlds:\n  slack:${slack.info.teamId}:${channel}:\n    access: { groups: [${group}] }\n`;
    const receiver = await start(config, url.toString());
    const other = await start(config, url.toString());
    slack.setGroup(group, []);
    const notes = () => slack.ephemerals.filter((entry) => entry.user === ALICE && entry.channel === channel);
    await other.sender.mention({ channel, user: ALICE, text: mention('before') });
    await slack.waitFor(() => notes()[0], { what: 'the refusal' });
    slack.setGroup(group, [ALICE]);
    await receiver.sender.event({ type: 'subteam_members_changed', subteam_id: group, team_id: slack.info.teamId, added_users: [ALICE], added_users_count: '1', event_ts: receiver.sender.nextTs() });
    await delay(200);
    await ask(other, channel, 'after');
  });
});

describe('per-person limits on one instance', () => {
  it('hold for a /skill command as for a message: past the limit, a private note and no turn', async () => {
    const bot = await start('defaults:\n  limits: { turnsPerPersonPerHour: 1 }\n');
    await ask(bot, 'C0ONECMD', 'only one');
    const requests = anthropic.requests.length;
    const responseUrl = slack.responseUrl();
    await bot.sender.command('/skill', `${NOTES_SKILL.id} v1`, { channel: 'C0ONECMD', user: ALICE, responseUrl });
    const answer = await slack.waitFor(() => slack.responses.find((response) => response.id === responseUrl.split('/').pop()), { what: 'the private answer' });
    expect(JSON.stringify(answer.body)).toMatch(/you can ask again in \d+ min/);
    await delay(200);
    expect(anthropic.requests.length).toBe(requests);
    expect(slack.messages.filter((message) => message.channel === 'C0ONECMD' && message.text.includes('asked for'))).toEqual([]);
  });
});

describe('daily token budget alerts', () => {
  it('DMs the admins once at 75 % and once at 95 %', async () => {
    // One turn's tokens, measured on a bot without a budget: the budget is then set so one turn passes 75 %.
    const measuring = await start('{}\n');
    const before = anthropic.requests.length;
    await ask(measuring, 'C0MEASURE', 'budget question 1');
    const usage = anthropic.requests.slice(before).map((request) => request.usage);
    const spent = usage.reduce((sum, one) => sum + (one ? one.input_tokens + one.output_tokens + (one.cache_read_input_tokens ?? 0) + (one.cache_creation_input_tokens ?? 0) : 0), 0);
    await Promise.all(bots.splice(0).map((bot) => bot.stop()));

    const team = slack.info.teamId;
    const bot = await start(`admins: [${ADMIN}]\nworlds:\n  slack:${team}:C0BUDGETS:\n    dailyTokenBudget: ${Math.ceil(spent / 0.8)}\n`);
    const alerts = () => slack.messages.filter((message) => message.channel === ADMIN);
    await ask(bot, 'C0BUDGETS', 'budget question 1');
    await slack.waitFor(() => alerts().length === 1, { what: 'the 75 % alert' });
    expect(alerts()[0]?.text).toContain('75 %');
    await ask(bot, 'C0BUDGETS', 'budget question 2');
    await slack.waitFor(() => alerts().length === 2, { what: 'the 95 % alert' });
    expect(alerts()[1]?.text).toContain('95 %');
    // Spent: the next message is refused by the budget, and no alert repeats.
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: 'C0BUDGETS', user: ALICE, ts, text: mention('budget question 3') });
    await waitForReply(slack, 'C0BUDGETS', ts, /daily budget/);
    await delay(200);
    expect(alerts()).toHaveLength(2);
  });
});
