// Discord on the durable queue: nothing queued is lost to a restart, command replies answered where they can be.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_BELOW_TEXT, STOPPED_TEXT } from '../../adapters/discord/outlets.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { type BrainRequest, type FakeAnthropic, lastUserText, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeChannel, type FakeDiscord, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { botMessages, type DiscordBot, makeSkillsDir, NOTES_SKILL, startDiscordBot, threadOn, waitForBotMessage } from './harness.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) throw new Error('CI=true needs REDIS_URL: the Discord scale-out test must run, not skip.');

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let alice: FakeUser;
const cleanups: Array<() => Promise<void>> = [];

/** A turn about `text` waits in the model call until released; every other turn answers at once. */
function holdTurnsAbout(text: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: BrainRequest[] = [];
  anthropic.setBrain(async (req) => {
    const last = lastUserText(req) ?? '';
    if (last === text) {
      held.push(req);
      await released;
    }
    return textReply(`heard ${req.messages.filter((message) => message.role === 'user').length}: ${last}`);
  });
  return { release, held };
}

const chatIdOf = (fake: FakeDiscord, thread: FakeChannel) => `discord:${fake.guildId}:${fake.general.id}/${thread.id}`;

/** Messages of a chat still in the durable inbox (docs/chats.md, "Durable queue"). */
async function queued(store: Store, chatId: string): Promise<number> {
  return (await store.inboxHead(chatId, 1_000)).length;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A mention in #general whose turn is held: resolves with the thread once the model has the question. */
async function heldThread(fake: FakeDiscord, hold: ReturnType<typeof holdTurnsAbout>, text: string): Promise<FakeChannel> {
  const mention = fake.say(alice, fake.general, `<@${fake.bot.id}> ${text}`);
  const thread = await fake.waitFor(() => threadOn(fake, mention.id), 'the thread');
  await fake.waitFor(() => hold.held.length > 0, 'the held turn to reach the model');
  return thread;
}

beforeAll(async () => {
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  alice = discord.addUser('alice');
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
});

async function startBot(options: { storeUrl?: string; sweeper?: boolean } = {}): Promise<DiscordBot> {
  const bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot, ...options });
  let stopped = false;
  cleanups.push(async () => {
    if (!stopped) await bot.stop();
  });
  return {
    ...bot,
    async stop() {
      stopped = true;
      await bot.stop();
    },
  };
}

describe('Discord on the durable queue', () => {
  it('answers in the thread, after a restart, what was queued while a turn was stuck and the bot stopped', async () => {
    const storeUrl = `sqlite://${join(skills.dir, `restart-${randomUUID()}.sqlite`)}`;
    const first = await startBot({ storeUrl });
    const hold = holdTurnsAbout('slow question');
    const thread = await heldThread(discord, hold, 'slow question');
    const chatId = chatIdOf(discord, thread);
    discord.say(alice, thread, 'second question');
    // Queued one after the other: a message and a command handled at once may reach the store in either order.
    await until(async () => (await queued(first.app.store, chatId)) === 2, 'the message queued');
    const command = discord.slash(alice, thread, 'skill', { id: NOTES_SKILL.id, args: 'v2' });
    await until(async () => (await queued(first.app.store, chatId)) === 3, 'three messages queued');
    expect(command.callbackType).toBe(5);

    await first.stop();
    // The command's reply no longer "thinks": it says the answer comes later, as its own message.
    expect(discord.world.message(command.originalMessageId ?? '')?.content).toBe(STOPPED_TEXT);
    // The first instance's stuck turn ends now, after it handed its chat over: it must not answer.
    hold.release();

    const second = await startBot({ storeUrl });
    const last = await waitForBotMessage(discord, thread.id, /for this request: v2$/);
    const answers = botMessages(discord, thread.id).filter((message) => message.content.startsWith('heard '));
    expect(answers.map((message) => message.content.replace(/^heard \d+: /, ''))).toEqual(['slow question', 'second question', expect.stringMatching(/release-notes.*: v2$/)]);
    expect(last.source).toBe('channel');
    expect(discord.world.message(command.originalMessageId ?? '')?.content).toBe(STOPPED_TEXT);
    await until(async () => (await queued(second.app.store, chatId)) === 0, 'the inbox to empty');
  });

  it('answers a command queued behind a running turn through its own reply, once its turn runs here', async () => {
    const bot = await startBot();
    const hold = holdTurnsAbout('hold on');
    const thread = await heldThread(discord, hold, 'hold on');
    const command = discord.slash(alice, thread, 'skill', { id: NOTES_SKILL.id, args: 'v3' });
    await until(async () => (await queued(bot.app.store, chatIdOf(discord, thread))) === 2, 'the command queued');
    hold.release();

    const earlier = await waitForBotMessage(discord, thread.id, /: hold on$/);
    const answer = await discord.waitFor(
      () => discord.world.messages.find((message) => message.interactionId === command.id && message.content.endsWith('for this request: v3')),
      'the answer through the command',
    );
    // The earlier answer was written into its own message, which showed from the start of its turn (above the
    // command): nothing landed below the command's reply, so the reply itself becomes the answer.
    expect(answer.source).toBe('interaction');
    expect(discord.world.messages.indexOf(answer)).toBeGreaterThan(discord.world.messages.indexOf(earlier));
    expect(answer.id).toBe(command.originalMessageId);
    expect(botMessages(discord, thread.id).filter((message) => message.content.endsWith('for this request: v3'))).toHaveLength(1);
  });

  describe.runIf(process.env.REDIS_URL)('on a shared Redis', () => {
    // A database of its own: every instance sweeps every queued chat it sees.
    const url = () => {
      const parsed = new URL(process.env.REDIS_URL ?? '');
      parsed.pathname = '/11';
      return parsed.toString();
    };

    it("tells a command's reply that the answer comes below when another instance ran its turn", async () => {
      // The receiving instance has no sweeper: once its own try finds the chat busy, the other instance runs it.
      await startBot({ storeUrl: url(), sweeper: false });
      anthropic.setBrain((req) => textReply(`heard: ${lastUserText(req) ?? ''}`));
      const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> start a thread`);
      const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
      await waitForBotMessage(discord, thread.id, 'heard: start a thread');

      // The chat is busy elsewhere while the command arrives.
      const store = await createStore(url());
      cleanups.push(() => store.close());
      const chatId = chatIdOf(discord, thread);
      // Runs once both bots stopped (cleanups run last first): what this chat left in the shared database.
      cleanups.push(async () => {
        for (const namespace of ['history', 'usage'] as const) await store.delete(namespace, chatId);
        await store.delete('chats', `discord:${thread.id}`);
      });
      const token = randomUUID();
      // The receiver lets the chat go just after its first answer is out.
      await until(() => store.claim('leases', `chat:${chatId}`, { status: token, at: Date.now() }, 30_000), 'the chat lease');
      const command = discord.slash(alice, thread, 'skill', { id: NOTES_SKILL.id, args: 'v4' });
      await until(async () => (await queued(store, chatId)) === 1, 'the command queued');

      await startBot({ storeUrl: url() });
      await store.release('leases', `chat:${chatId}`, token);
      const answer = await waitForBotMessage(discord, thread.id, /^heard: .*for this request: v4$/);
      expect(answer.source).toBe('channel');
      await discord.waitFor(() => discord.world.message(command.originalMessageId ?? '')?.content === ANSWER_BELOW_TEXT, 'the reply to point below');
      // The receiver never answered through the command: its only message is the reply itself.
      expect(discord.world.messages.filter((message) => message.interactionId === command.id)).toHaveLength(1);
    });
  });
});
