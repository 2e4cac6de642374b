// The platform contract's Discord side: gateway events and button interactions into discord.js, read back from
// the Discord fake's REST record.
import { CONNECT_PREFIX, connectCustomId } from '../../adapters/discord/mcpConnect.ts';
import { STOP_PREFIX } from '../../adapters/discord/stop.ts';
import { stoppedText } from '../../src/agent/turnMessages.ts';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeChannel, type FakeDiscord, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { approvalIn, botMessages, buttonIds, type DiscordBot, startDiscordBot, threadOn } from '../discord/harness.ts';
import type { BotSetup, Conversation, Option, Person, PlatformDriver, Question, SentFile } from './driver.ts';

const isQuestion = (message: FakeMessage): boolean => message.history[0]?.includes('**Approval needed:**') === true;
const isConnectAsk = (message: FakeMessage): boolean => buttonIds(message).some((id) => id.startsWith(CONNECT_PREFIX));
/** Progress ("⏳ Working on it…"), approval questions, "Stopped by" notes, Connect asks and posted files are not answers. */
const isAnswer = (message: FakeMessage): boolean =>
  !message.content.endsWith('…') && !isQuestion(message) && !message.content.startsWith('Stopped by ') && !isConnectAsk(message) && message.attachments.length === 0;
const stopButtonOf = (message: FakeMessage): string | undefined => buttonIds(message).find((id) => id.startsWith(STOP_PREFIX));

export function discordDriver(): PlatformDriver {
  let discord: FakeDiscord;
  let anthropic: FakeAnthropic;
  let setup: BotSetup;
  let bot: DiscordBot;
  const users = {} as Record<Person, FakeUser>;
  /** Each person's button clicks: a click's ephemeral reply is the note only they see. */
  const clicks: Record<Person, Set<string>> = { alice: new Set(), bob: new Set() };
  /** Private notes a wait has already taken: a later wait needs a new one. */
  const seenNotes = new Set<FakeMessage>();
  /** Connect buttons already clicked. */
  const seenAsks = new Set<FakeMessage>();

  const startBot = async () => {
    bot = await startDiscordBot({ discord, anthropic, skillsRoot: setup.skillsDirs, storeUrl: setup.storeUrl, env: setup.env });
  };
  const click = (person: Person, message: FakeMessage, customId: string) => {
    clicks[person].add(discord.click(users[person], message, customId).id);
  };
  /** A click's ephemeral reply, or (for a typed message, which has none) a DM from the bot. */
  const isPrivateTo = (person: Person, message: FakeMessage): boolean =>
    message.ephemeral
      ? clicks[person].has(message.interactionId ?? '')
      : message.author.id === discord.bot.id && message.channelId === discord.world.dmWith(users[person]).id;

  const question = (message: FakeMessage): Question => {
    const approvalId = /^hitl:([^:]+):/.exec(buttonIds(message)[0] ?? '')?.[1] ?? '';
    return {
      text: () => message.content,
      isOpen: () => buttonIds(message).some((id) => id.startsWith('hitl:')),
      async click(person: Person, option: Option) {
        click(person, message, `hitl:${approvalId}:${option}`);
      },
    };
  };

  const conversation = (thread: FakeChannel, first: FakeMessage): Conversation => {
    let last = first;
    const asked = new Set<string>();
    const inThread = () => botMessages(discord, thread.id);
    return {
      async say(person, text, options = {}) {
        last = discord.say(users[person], thread, options.mention === true ? `<@${discord.bot.id}> ${text}` : text);
      },
      async deliverAgain() {
        discord.redeliver(last);
      },
      async waitForAnswer(text) {
        // The answer may be led by what the model wrote before its tool calls.
        const matches = (content: string) => (typeof text === 'string' ? content.includes(text) : text.test(content));
        const message = await discord.waitFor(() => inThread().find((posted) => isAnswer(posted) && matches(posted.content)), `the answer "${String(text)}"`);
        return message.content;
      },
      answers: () => inThread().filter(isAnswer).map((message) => message.content),
      messagesThatHeld: (text) =>
        discord.world.messages.filter((message) => message.channelId === thread.id && message.author.id === discord.bot.id && message.history.some((version) => version.includes(text)))
          .length,
      messagesDeleted: () => discord.world.messages.filter((message) => message.channelId === thread.id && message.author.id === discord.bot.id && message.deleted).length,
      async waitForQuestion() {
        const message = await discord.waitFor(() => {
          const found = approvalIn(discord, thread.id);
          return found && !asked.has(found.id) ? found : inThread().find((posted) => !asked.has(posted.id) && isQuestion(posted));
        }, 'an approval question');
        asked.add(message.id);
        return question(message);
      },
      async clickStop(person) {
        const status = await discord.waitFor(() => inThread().find((message) => stopButtonOf(message)), 'the Stop button');
        click(person, status, stopButtonOf(status) ?? '');
      },
      hasStopButton: () => inThread().some((message) => stopButtonOf(message) !== undefined),
      async waitForStopped(person) {
        const text = stoppedText(`<@${users[person].id}>`);
        await discord.waitFor(() => inThread().find((message) => message.content === text), `"${text}"`);
      },
      async waitForPrivateNote(person, text) {
        const note = await discord.waitFor(
          () => discord.world.messages.find((message) => !seenNotes.has(message) && (typeof text === 'string' ? message.content === text : text.test(message.content)) && isPrivateTo(person, message)),
          `a private note to ${person}`,
        );
        seenNotes.add(note);
      },
      async signInNote(person, server) {
        // The thread names the person with a Connect button; their click is answered with the link, ephemerally.
        const id = connectCustomId(server, users[person].id);
        const ask = await discord.waitFor(() => inThread().find((message) => !seenAsks.has(message) && buttonIds(message).includes(id)), `the Connect ${server} button for ${person}`);
        seenAsks.add(ask);
        const interaction = discord.click(users[person], ask, id);
        clicks[person].add(interaction.id);
        const note = await discord.waitFor(
          () => discord.world.messages.find((message) => message.ephemeral && message.interactionId === interaction.id && message.content.includes('connect your account')),
          `the sign-in link to ${server} for ${person}`,
        );
        seenNotes.add(note);
        return note.content;
      },
      uploadedFiles: () =>
        inThread().flatMap((message) => message.attachments.map((file) => ({ name: file.filename, text: file.bytes.toString('utf8'), caption: message.content }))),
    };
  };

  return {
    async start(model, botSetup) {
      anthropic = model;
      setup = botSetup;
      discord = await startFakeDiscord();
      users.alice = discord.addUser('alice');
      users.bob = discord.addUser('bob');
      await startBot();
    },
    async restart() {
      await bot.stop();
      await startBot();
    },
    async stop() {
      await bot?.stop();
      await discord?.close();
    },
    async mention(person: Person, text: string, files: SentFile[] = []) {
      const attached = files.map((file) => ({ name: file.name, contentType: file.type, bytes: file.bytes }));
      const message = discord.say(users[person], discord.general, `<@${discord.bot.id}> ${text}`, attached);
      const thread = await discord.waitFor(() => threadOn(discord, message.id), 'the thread the bot opens');
      return conversation(thread, message);
    },
  };
}
