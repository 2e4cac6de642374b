// A server's questions in Discord, through the Discord fake speaking Discord's interactions: a server of our own on
// @modelcontextprotocol/server 2.4 (stdio in the sandbox) asks mid-call. The card names the server, the requester and
// the message; the requester's Answer opens a modal (callback type 9) and their submission (INTERACTION_CREATE type
// 5) answers; a wrong value is said ephemerally with a button to reopen; a seven-field form is asked in two modals;
// decline and cancel; another person's click refused ephemerally; a URL question whose link only the requester sees;
// a card still open when the bot stops says its question ended and loses its buttons (its turn's question is never resumed).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeChannel, type FakeDiscord, type FakeInteraction, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { SERVER_SDK } from '../mcp/fixtures/serverSdk.ts';
import { makeSkillsDir } from '../platforms/skills.ts';
import { botMessages, buttonIds, type DiscordBot, startDiscordBot, threadOn, useDiscordBot } from './harness.ts';

const SERVER = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'elicitServer.mjs');
const setup = await makeSkillsDir([]);
afterAll(() => setup.remove());
const configFile = join(setup.dir, 'skillbot.yaml');
const server = `  deployer: { type: stdio, command: node, args: [${JSON.stringify(SERVER)}, ${JSON.stringify(SERVER_SDK)}] }`;
await writeFile(configFile, ['mcpServers:', server, 'defaults:', '  mcp: [deployer]', "  mcpNoApproval: ['mcp__deployer__*']", ''].join('\n'));

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let bot: DiscordBot;
let alice: FakeUser;
let bob: FakeUser;
useDiscordBot((started) => ({ discord, anthropic, bot, alice, bob } = started), { env: { SKILLBOT_CONFIG: configFile } });

function callThen(tool: string): void {
  anthropic.setBrain((req) => {
    const result = lastToolResult(req);
    return result === undefined ? toolUseReply(`mcp__deployer__${tool}`, {}, { text: 'Asking the server.' }) : textReply(`server said: ${result.content}`);
  });
}

const cardIn = (thread: FakeChannel) => botMessages(discord, thread.id).find((message) => buttonIds(message).some((id) => /^elicit:[\w-]{16}:open$/.test(id)));
const idOf = (card: FakeMessage): string => buttonIds(card).find((id) => id.endsWith(':open'))!.slice('elicit:'.length, -':open'.length);

async function ask(text: string): Promise<{ thread: FakeChannel; card: FakeMessage; id: string }> {
  const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> ${text}`);
  const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
  const card = await discord.waitFor(() => cardIn(thread), 'the question card', 30_000);
  return { thread, card, id: idOf(card) };
}

/** The ephemeral answer to an interaction, once it has its text (not "thinking…"). */
function answerTo(interaction: FakeInteraction, what: string): Promise<FakeMessage> {
  return discord.waitFor(() => discord.world.messages.find((posted) => posted.interactionId === interaction.id && posted.content !== ''), what);
}

function openModal(user: FakeUser, message: FakeMessage, id: string) {
  const opened = discord.click(user, message, `elicit:${id}:open`);
  return discord.waitFor(() => discord.modalOf(opened) && { opened, modal: discord.modalOf(opened)! }, 'the modal');
}

const replyIn = (thread: FakeChannel) => discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content.includes('server said')), 'the answer', 30_000);

describe('MCP questions in Discord', () => {
  it('the requester answers in a modal, a wrong value turned back ephemerally; another person is refused', async () => {
    callThen('deploy');
    const { thread, card, id } = await ask('deploy it');
    expect(card.content).toBe(`❓ **deployer** asks <@${alice.id}>: Deploy to production?`);
    expect(buttonIds(card)).toEqual([`elicit:${id}:open`, `elicit:${id}:decline`, `elicit:${id}:cancel`]);
    expect(card.pings).toEqual([`user:${alice.id}`]);

    const bobs = discord.click(bob, card, `elicit:${id}:open`);
    expect((await answerTo(bobs, "Bob's refusal")).content).toBe(`Only <@${alice.id}> can answer this.`);
    expect(discord.modalOf(bobs)).toBeUndefined();

    const first = await openModal(alice, card, id);
    expect(first.modal.title).toBe('deployer');
    expect(first.modal.fields.map((field) => [field.label, field.input.type])).toEqual([['Replicas', 4], ['Reason', 4], ['Password', 4], ['Confirm', 3]]);
    const wrong = discord.submitModal(alice, first.opened, { Replicas: '12', Reason: 'release day' });
    const turnedBack = await answerTo(wrong, 'the wrong value turned back');
    expect(turnedBack.ephemeral).toBe(true);
    expect(turnedBack.content).toContain('must be <= 9');
    expect(buttonIds(turnedBack)).toEqual([`elicit:${id}:open`]);

    const again = await openModal(alice, turnedBack, id);
    // What was typed is shown again (a modal cannot keep it), but never a secret.
    expect(again.modal.fields.map((field) => field.input.value)).toEqual(['12', 'release day', undefined, undefined]);
    const right = discord.submitModal(alice, again.opened, { Replicas: '3', Password: 'hunter2', Confirm: 'true' });
    expect((await answerTo(right, 'the sent note')).content).toBe('Sent to **deployer**.');
    expect((await replyIn(thread)).content).toContain('"content":{"replicas":3,"reason":"release day","password":"hunter2","confirm":true}');
    await discord.waitFor(() => card.content.includes(`Answered by <@${alice.id}>`) && card.components.length === 0, 'the card marked answered');
  }, 60_000);

  it('a seven-field form is asked in two modals, the first step kept (sealed) until the last sends the whole answer', async () => {
    callThen('survey');
    const { thread, card, id } = await ask('fill in the survey');
    const step1 = await openModal(alice, card, id);
    expect(step1.modal.title).toBe('deployer (1 of 2)');
    expect(step1.modal.fields.map((field) => field.label)).toEqual(['Name', 'Team', 'Replicas', 'Email', 'Notify']);
    const tooMany = discord.submitModal(alice, step1.opened, { Name: 'Ada', Team: 'api', Replicas: '12', Email: 'ada@example.com', Notify: 'true' });
    const back = await answerTo(tooMany, 'step 1 turned back');
    expect(back.content).toContain('must be <= 9');

    const retry = await openModal(alice, back, id);
    expect(retry.modal.title).toBe('deployer (1 of 2)');
    expect(retry.modal.fields[0]!.input.value).toBe('Ada');
    const kept = discord.submitModal(alice, retry.opened, { Replicas: '4' });
    const keptNote = await answerTo(kept, 'step 1 kept');
    expect(keptNote.content).toBe('Kept (1 of 2). Nothing is sent until the last step.');
    expect(JSON.stringify(await bot.app.store.get('mcp', `question-draft:${id}`))).not.toContain('Ada');
    expect(botMessages(discord, thread.id).some((message) => message.content.includes('server said'))).toBe(false);

    const step2 = await openModal(alice, keptNote, id);
    expect(step2.modal.title).toBe('deployer (2 of 2)');
    expect(step2.modal.fields.map((field) => [field.label, field.input.type])).toEqual([['Region', 3], ['Notes', 4]]);
    const badNotes = discord.submitModal(alice, step2.opened, { Region: 'eu', Notes: 'Loud!' });
    const bad = await answerTo(badNotes, 'the notes turned back');
    expect(bad.content).toContain('notes');
    const last = await openModal(alice, bad, id);
    expect(last.modal.title).toBe('deployer (2 of 2)');
    discord.submitModal(alice, last.opened, { Region: 'eu', Notes: 'all good' });
    expect((await replyIn(thread)).content).toContain('"content":{"name":"Ada","team":"api","replicas":4,"email":"ada@example.com","notify":true,"region":"eu","notes":"all good"}');
  }, 90_000);

  it('declined by the requester (another person\'s Decline refused); cancelled by the requester', async () => {
    callThen('deploy');
    const declined = await ask('deploy it again');
    const bobs = discord.click(bob, declined.card, `elicit:${declined.id}:decline`);
    expect((await answerTo(bobs, "Bob's refusal")).content).toBe(`Only <@${alice.id}> can answer this.`);
    discord.click(alice, declined.card, `elicit:${declined.id}:decline`);
    expect((await replyIn(declined.thread)).content).toContain('{"action":"decline"}');
    await discord.waitFor(() => declined.card.content.includes(`Declined by <@${alice.id}>`) && declined.card.components.length === 0, 'the card marked declined');

    const cancelled = await ask('deploy it once more');
    discord.click(alice, cancelled.card, `elicit:${cancelled.id}:cancel`);
    expect((await replyIn(cancelled.thread)).content).toContain('{"action":"cancel"}');
    // A late click on a closed question is told so.
    const late = discord.click(alice, cancelled.card, `elicit:${cancelled.id}:open`);
    expect((await answerTo(late, 'the late click')).content).toContain('This question is closed.');
  }, 90_000);

  it('a URL question: the link and its host reach only the requester, and the server hears accept on their Open', async () => {
    callThen('sign_in');
    const { thread, card, id } = await ask('sign me in');
    expect(card.content).toContain(`<@${alice.id}>, **deployer** asks you to open a page`);
    expect(buttonIds(card)).toEqual([`elicit:${id}:open`, `elicit:${id}:decline`]);
    const bobs = discord.click(bob, card, `elicit:${id}:open`);
    expect((await answerTo(bobs, "Bob's refusal")).content).toBe(`Only <@${alice.id}> can answer this.`);

    const note = await answerTo(discord.click(alice, card, `elicit:${id}:open`), "Alice's note");
    expect(note.ephemeral).toBe(true);
    expect(note.content).toContain('**billing.example.com**');
    expect(buttonIds(note)).toEqual([`elicit:${id}:accept`, `elicit:${id}:decline`]);
    expect(JSON.stringify(note.components)).not.toContain('authorize?session');
    discord.click(alice, note, `elicit:${id}:accept`);
    await discord.waitFor(() => JSON.stringify(note.components).includes('"url":"https://billing.example.com/authorize?session=abc"'), 'the link button');
    expect((await replyIn(thread)).content).toContain('{"action":"accept"}');
    const publicTexts = discord.world.messages.filter((message) => !message.ephemeral).flatMap((message) => [...message.history, JSON.stringify(message.components)]);
    expect(publicTexts.some((text) => text.includes('billing.example.com'))).toBe(false);
  }, 60_000);

  it('on stop, a card its turn still waits on says the question ended and loses its buttons', async () => {
    const fake = await startFakeDiscord();
    const carol = fake.addUser('carol');
    const own = await startDiscordBot({ discord: fake, anthropic, skillsRoot: setup.skillsRoot, env: { SKILLBOT_CONFIG: configFile } });
    try {
      callThen('deploy');
      const mention = fake.say(carol, fake.general, `<@${fake.bot.id}> deploy it`);
      const thread = await fake.waitFor(() => threadOn(fake, mention.id), 'the thread');
      const card = await fake.waitFor(() => botMessages(fake, thread.id).find((message) => buttonIds(message).some((id) => id.startsWith('elicit:'))), 'the question card', 30_000);
      await own.stop();
      expect(card.components).toEqual([]);
      expect(card.content).toBe(`❓ **deployer** asks <@${carol.id}>: Deploy to production?\n**deployer**'s question: Cancelled (the turn ended).`);
    } finally {
      await own.stop();
      await fake.close();
    }
  }, 60_000);
});
