// A server's questions in Slack, through the Slack fake speaking Slack's payloads: a server of our own on
// @modelcontextprotocol/server 2.4 (stdio in the sandbox) asks mid-call; the card names the server and its
// message; the requester opens the modal (views.open) and submits it (view_submission), a value outside the
// schema shown as the field's error; another person's click is refused privately; decline; a URL question reaches
// the requester alone, its host named, the link a button.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, BOB, CHANNEL, type SlackBot, startSlackBot, waitForReply } from './harness.ts';
import { SERVER_SDK } from '../mcp/fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'elicitServer.mjs');

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;

beforeAll(async () => {
  [slack, anthropic, skills] = await Promise.all([startFakeSlack(), startFakeAnthropic(), makeSkillsDir([])]);
  const config = join(skills.dir, 'skillbot.yaml');
  const server = `  deployer: { type: stdio, command: node, args: [${JSON.stringify(SERVER)}, ${JSON.stringify(SERVER_SDK)}] }`;
  await writeFile(config, ['mcpServers:', server, 'defaults:', '  mcp: [deployer]', "  mcpNoApproval: ['mcp__deployer__*']", ''].join('\n'));
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: config } });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
});

function callThen(tool: string): void {
  anthropic.setBrain((req) => {
    const result = lastToolResult(req);
    return result === undefined ? toolUseReply(`mcp__deployer__${tool}`, {}) : textReply(`server said: ${result.content}`);
  });
}

async function ask(text: string): Promise<{ threadTs: string; card: PostedMessage }> {
  const threadTs = bot.sender.nextTs();
  await bot.sender.mention({ channel: CHANNEL, user: ALICE, text: `<@${slack.info.botUserId}> ${text}`, ts: threadTs });
  const card = await slack.waitFor(() => slack.thread(CHANNEL, threadTs).find((message) => JSON.stringify(message.blocks ?? []).includes('mcp_elicit_open')), { what: 'the question card' });
  return { threadTs, card };
}

const questionIdOf = (card: PostedMessage): string =>
  (card.blocks as Array<{ elements?: Array<{ action_id: string; value: string }> }>).flatMap((block) => block.elements ?? []).find((element) => element.action_id === 'mcp_elicit_open')?.value ?? '';

describe('MCP questions in Slack', () => {
  it('the requester answers in a modal (a wrong value shown on its field); another person is refused privately', async () => {
    callThen('deploy');
    const { threadTs, card } = await ask('deploy it');
    expect(JSON.stringify(card.blocks)).toContain('*deployer* asks');
    expect(JSON.stringify(card.blocks)).toContain('Deploy to production?');
    const id = questionIdOf(card);
    const click = (user: string, actionId: string) => bot.sender.click({ user, channel: CHANNEL, messageTs: card.ts, threadTs, actionId, value: id });

    await click(BOB, 'mcp_elicit_open');
    await slack.waitFor(() => slack.ephemerals.find((note) => note.user === BOB && note.text.includes(`Only <@${ALICE}> can answer this`)), { what: "Bob's refusal" });
    expect(slack.modals).toHaveLength(0);

    await click(ALICE, 'mcp_elicit_open');
    const modal = await slack.waitFor(() => slack.modals.at(-1), { what: 'the modal' });
    expect(modal.view).toMatchObject({ callback_id: 'mcp_elicit', private_metadata: id });
    const kinds = Object.fromEntries(modal.view.blocks.filter((block) => block.type === 'input').map((block) => [block.block_id, (block.element as { type: string }).type]));
    expect(kinds).toEqual({ replicas: 'plain_text_input', reason: 'plain_text_input', password: 'plain_text_input', confirm: 'checkboxes' });

    const wrong = await bot.sender.submitView({ user: ALICE, view: { id: modal.id, ...modal.view }, answers: { replicas: '12', reason: 'release day' } });
    expect(wrong.json).toMatchObject({ response_action: 'errors', errors: { replicas: expect.stringContaining('must be <= 9') } });
    const byBob = await bot.sender.submitView({ user: BOB, view: { id: modal.id, ...modal.view }, answers: { replicas: '2', reason: 'mine' } });
    expect(JSON.stringify(byBob.json)).toContain(`Only <@${ALICE}> can answer this`);

    const right = await bot.sender.submitView({ user: ALICE, view: { id: modal.id, ...modal.view }, answers: { replicas: '3', reason: 'release day', password: 'hunter2', confirm: true } });
    expect(right.status).toBe(200);
    expect(right.text).toBe('');
    const reply = await waitForReply(slack, CHANNEL, threadTs, /server said/);
    expect(reply.text).toContain('"content":{"replicas":3,"reason":"release day","password":"hunter2","confirm":true}');
    await slack.waitFor(() => slack.thread(CHANNEL, threadTs).find((message) => message.ts === card.ts && message.text.includes('Answered by')), { what: 'the card marked answered' });
  }, 60_000);

  it('the requester declines', async () => {
    callThen('deploy');
    const { threadTs, card } = await ask('deploy it again');
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: card.ts, threadTs, actionId: 'mcp_elicit_decline', value: questionIdOf(card) });
    const reply = await waitForReply(slack, CHANNEL, threadTs, /server said/);
    expect(reply.text).toContain('{"action":"decline"}');
  }, 60_000);

  it('a URL question reaches only the requester, naming its host, the link a button', async () => {
    callThen('sign_in');
    const threadTs = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, text: `<@${slack.info.botUserId}> sign me in`, ts: threadTs });
    const note = await slack.waitFor(() => slack.ephemerals.find((entry) => JSON.stringify(entry.blocks ?? []).includes('mcp_elicit_accept')), { what: 'the URL note' });
    expect(note.user).toBe(ALICE);
    expect(JSON.stringify(note.blocks)).toContain('billing.example.com');
    expect(JSON.stringify(note.blocks)).toContain('"url":"https://billing.example.com/authorize?session=abc"');
    expect(slack.messages.some((message) => JSON.stringify(message).includes('billing.example.com'))).toBe(false);
    const buttons = (note.blocks as Array<{ elements?: Array<{ action_id: string; value: string }> }>).flatMap((block) => block.elements ?? []);
    const id = buttons.find((element) => element.action_id === 'mcp_elicit_accept')?.value ?? '';
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: slack.nextTs(), threadTs, actionId: 'mcp_elicit_accept', value: id });
    const reply = await waitForReply(slack, CHANNEL, threadTs, /server said/);
    expect(reply.text).toContain('{"action":"accept"}');
  }, 60_000);
});
