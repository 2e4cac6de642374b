// Who may use the bot in Slack (issue 34): guests, Slack Connect members, people outside `users`, members of a
// listed user group; approvers held to the same rule; bots let in on purpose. Through the Slack and Anthropic fakes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, reportBrain, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, approvalIn, BOB, type SlackBot, startSlackBot, waitForReply } from '../slack/harness.ts';

const GUESTS = 'C0NOGUESTS';
const TEAM = 'C0TEAMONLY';
const BOTS = 'C0BOTS';
const GUEST = 'UGUEST';
const VISITOR = 'UVISITOR';
const DAVE = 'UDAVE';
const CAROL = 'UCAROL';
const ADMIN = 'UADMIN';
const DEPLOYBOT = 'B0DEPLOY';
const STRANGERBOT = 'B0STRANGER';
const SISTER = 'USISTER';
const DM_OF_GUS = 'D0GUS';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;
let folder: string;

beforeAll(async () => {
  slack = await startFakeSlack({ enterpriseId: 'E0GRID' });
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  folder = await mkdtemp(join(tmpdir(), 'skillbot-access-'));
  const team = slack.info.teamId;
  const config = `
admins: [${ADMIN}]
worlds:
  slack:${team}:${GUESTS}:
    access: { guests: deny, external: deny }
  slack:${team}:${TEAM}:
    access: { users: [${ALICE}], groups: [S0OPS] }
    approvers: [${CAROL}]
  slack:${team}:${DM_OF_GUS}:
    access: { dms: deny }
  slack:${team}:${BOTS}:
    bots: { allow: [${DEPLOYBOT}], maxTurnsPerMinute: 3, cooldownS: 60 }
`;
  await writeFile(join(folder, 'skillbot.yaml'), config);
  slack.addPerson(ALICE, 'Alice');
  slack.addPerson(BOB, 'Bob');
  slack.addPerson(DAVE, 'Dave');
  slack.addPerson(CAROL, 'Carol');
  slack.addPerson(GUEST, 'Gus Guest', { guest: 'single' });
  slack.addPerson(VISITOR, 'Vera Visitor', { teamId: 'T0OTHERCO' });
  slack.addPerson(SISTER, 'Sam Sister', { teamId: 'T0SISTER', enterpriseId: 'E0GRID' });
  slack.setGroup('S0OPS', [DAVE]);
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: join(folder, 'skillbot.yaml') } });
});

afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
  await rm(folder, { recursive: true, force: true });
});

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;
const everyRequest = () => anthropic.requests.map((request) => request.rawBody).join('\n');
const ephemeralsFor = (user: string) => slack.ephemerals.filter((entry) => entry.user === user);

/** Sends a mention and waits until the refusal reaches the person privately; nothing is posted in the thread. */
async function refused(channel: string, user: string, text: string): Promise<string> {
  const before = ephemeralsFor(user).length;
  const ts = bot.sender.nextTs();
  const response = await bot.sender.mention({ channel, user, ts, text: mention(text) });
  expect(response.status).toBe(200);
  const note = await slack.waitFor(() => ephemeralsFor(user)[before], { what: `a private note to ${user}` });
  await delay(150);
  expect(slack.thread(channel, ts)).toEqual([]);
  return note.text;
}

describe('who may use the bot in Slack', () => {
  it('a single-channel guest is refused privately, naming whom to ask; nothing of it reaches the model', async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
    const note = await refused(GUESTS, GUEST, 'guest secret plan');
    expect(note).toContain('guests cannot use me here');
    expect(note).toContain(`<@${ADMIN}>`);
    expect(everyRequest()).not.toContain('guest secret plan');
  });

  it('a Slack Connect member of another workspace is refused; a member of this one is answered', async () => {
    const note = await refused(GUESTS, VISITOR, 'visitor question');
    expect(note).toContain('members of other organisations');
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: GUESTS, user: ALICE, ts, text: mention('member question') });
    await waitForReply(slack, GUESTS, ts, 'heard: member question');
    expect(everyRequest()).not.toContain('visitor question');
  });

  it('a member of a sister workspace in the same Enterprise Grid org is not external', async () => {
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: GUESTS, user: SISTER, ts, text: mention('sister question') });
    await waitForReply(slack, GUESTS, ts, 'heard: sister question');
  });

  it('a world with dms: deny refuses a direct message privately', async () => {
    const before = ephemeralsFor(ALICE).length;
    await bot.sender.message({ channel: DM_OF_GUS, user: ALICE, channelType: 'im', text: 'dm question' });
    const note = await slack.waitFor(() => ephemeralsFor(ALICE)[before], { what: 'the DM refusal' });
    expect(note.text).toContain('direct messages');
    expect(everyRequest()).not.toContain('dm question');
  });

  it('in a channel listing users and a group: someone outside both is refused, a group member answered', async () => {
    const note = await refused(TEAM, BOB, 'bob question');
    expect(note).toContain('only some people');
    expect(note).toContain(`<@${CAROL}>`);
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: TEAM, user: DAVE, ts, text: mention('dave question') });
    await waitForReply(slack, TEAM, ts, 'heard: dave question');
    expect(everyRequest()).not.toContain('bob question');
  });

  it("a refused person's words in a thread never reach a later turn's context read", async () => {
    const root = bot.sender.nextTs();
    slack.seed({ channel: TEAM, ts: root, user: ALICE, text: 'alice opens the thread' });
    slack.seed({ channel: TEAM, ts: bot.sender.nextTs(), threadTs: root, user: BOB, text: 'bob injected words' });
    slack.seed({ channel: TEAM, ts: bot.sender.nextTs(), threadTs: root, user: DAVE, text: 'dave adds a detail' });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: TEAM, user: ALICE, ts, threadTs: root, text: mention('summarise') });
    await waitForReply(slack, TEAM, root, /^heard: [\s\S]*summarise/);
    const seen = anthropic.requests.at(-1)?.rawBody ?? '';
    expect(seen).toContain('dave adds a detail');
    expect(seen).toContain('alice opens the thread');
    expect(seen).not.toContain('bob injected words');
  });

  it("a refused person chatting in the bot's thread without mentioning it is told once, and never reaches the model", async () => {
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
    const root = bot.sender.nextTs();
    await bot.sender.mention({ channel: TEAM, user: ALICE, ts: root, text: mention('start a thread') });
    await waitForReply(slack, TEAM, root, 'heard: start a thread');
    const before = ephemeralsFor(BOB).length;
    await bot.sender.message({ channel: TEAM, user: BOB, threadTs: root, text: 'bob chats along 1' });
    await bot.sender.message({ channel: TEAM, user: BOB, threadTs: root, text: 'bob chats along 2' });
    await slack.waitFor(() => ephemeralsFor(BOB)[before], { what: 'the one note' });
    await delay(200);
    expect(ephemeralsFor(BOB)).toHaveLength(before + 1);
    expect(everyRequest()).not.toContain('bob chats along');
  });

  it("a refused approver's click does nothing; the requester's still counts", async () => {
    reportBrain(anthropic);
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: TEAM, user: ALICE, ts, text: mention('how full is the disk?') });
    const question = await slack.waitFor(() => approvalIn(slack, TEAM, ts), { what: 'the approval question' });
    const approvalId = approvalIdOf(question);
    const before = ephemeralsFor(CAROL).length;
    const click = (user: string, actionId: string) => bot.sender.click({ user, channel: TEAM, messageTs: question.ts, threadTs: ts, actionId, value: approvalId });
    expect((await click(CAROL, 'hitl_yes_once')).status).toBe(200);
    const note = await slack.waitFor(() => ephemeralsFor(CAROL)[before], { what: 'the note to the refused approver' });
    expect(note.text).toContain('cannot use skillbot here');
    await delay(200);
    expect(JSON.stringify(question.blocks)).toContain('hitl_yes_once');
    await click(ALICE, 'hitl_no');
    await waitForReply(slack, TEAM, ts, 'the script did not run');
  });

  it('a user group change (subteam_members_changed) applies at once', async () => {
    const ERIN = 'UERIN';
    anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
    slack.addPerson(ERIN, 'Erin');
    await refused(TEAM, ERIN, 'erin before');
    slack.setGroup('S0OPS', [DAVE, ERIN]);
    await bot.sender.event({ type: 'subteam_members_changed', subteam_id: 'S0OPS', team_id: slack.info.teamId, added_users: [ERIN], added_users_count: '1', event_ts: bot.sender.nextTs() });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: TEAM, user: ERIN, ts, text: mention('erin after') });
    await waitForReply(slack, TEAM, ts, 'heard: erin after');
  });

  it("a refused person's App Home shows only the refusal", async () => {
    const before = slack.views.length;
    await bot.sender.event({ type: 'app_home_opened', user: ALICE, channel: DM_OF_GUS, tab: 'home', event_ts: bot.sender.nextTs() });
    const view = await slack.waitFor(() => slack.views[before], { what: 'the Home tab' });
    expect(JSON.stringify(view.view.blocks)).toContain('cannot use skillbot here');
    expect(JSON.stringify(view.view.blocks)).not.toContain('Revoke');
  });

  it('slash commands obey it: /skills and /usage from a refused person answer only the refusal', async () => {
    const skillsList = await bot.sender.command('/skills', '', { channel: TEAM, user: BOB });
    expect(JSON.stringify(skillsList.json)).toContain('cannot use skillbot here');
    const usage = await bot.sender.command('/usage', '', { channel: TEAM, user: DAVE });
    expect(JSON.stringify(usage.json)).toMatch(/questions in the last 60 min: 1 \(no limit\)/);
  });
});

describe('bots in Slack', () => {
  it('an unlisted bot never starts a turn; the bot\'s own posts never do', async () => {
    const requests = anthropic.requests.length;
    await bot.sender.mention({ channel: BOTS, user: 'USTRANGER', botId: STRANGERBOT, text: mention('stranger asks') });
    await bot.sender.mention({ channel: BOTS, user: slack.info.botUserId, botId: slack.info.botId, text: mention('myself') });
    await delay(300);
    expect(anthropic.requests.length).toBe(requests);
    expect(slack.messages.filter((message) => message.channel === BOTS)).toEqual([]);
  });

  it('a listed bot starts turns until the rate, then one cooldown message, then nothing', async () => {
    anthropic.setBrain((req) => textReply(`bot heard: ${lastUserText(req) ?? ''}`));
    const requests = anthropic.requests.length;
    // The other bot answers every reply of ours, as two bots in a loop would.
    for (let round = 1; round <= 6; round++) await bot.sender.mention({ channel: BOTS, user: 'UDEPLOY', botId: DEPLOYBOT, text: mention(`ping ${round}`) });
    const cooldown = await slack.waitFor(() => slack.messages.find((message) => message.channel === BOTS && message.text.includes('not answering bots')), { what: 'the cooldown' });
    expect(cooldown.threadTs).toBeUndefined();
    await slack.waitFor(() => anthropic.requests.length - requests >= 3, { what: 'three turns' });
    await delay(300);
    expect(anthropic.requests.length - requests).toBe(3);
    expect(slack.messages.filter((message) => message.channel === BOTS && message.text.includes('not answering bots'))).toHaveLength(1);
  });
});
