// The platform contract's Discord side: gateway events and button interactions into discord.js, read back from
// the Discord fake's REST record.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeChannel, type FakeDiscord, type FakeInteraction, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { approvalIn, botMessages, buttonIds, type DiscordBot, startDiscordBot, threadOn } from '../discord/harness.ts';
import { type Conversation, type Option, type Person, type PlatformDriver, type Question, REPORT_SKILL } from './contract.ts';

/** Progress ("Working on it…") and approval questions are not answers. */
const isAnswer = (message: FakeMessage): boolean => !message.content.endsWith('…') && !message.history[0]?.includes('**Approval needed:**');

export function discordDriver(): PlatformDriver {
  let discord: FakeDiscord;
  let anthropic: FakeAnthropic;
  let bot: DiscordBot;
  let dir: string;
  const users = {} as Record<Person, FakeUser>;
  const clicks: Array<{ person: Person; click: FakeInteraction }> = [];

  const startBot = async () => {
    bot = await startDiscordBot({ discord, anthropic, skillsRoot: join(dir, 'skills'), storeUrl: `sqlite://${join(dir, 'state.sqlite')}` });
  };

  const question = (message: FakeMessage): Question => {
    const approvalId = /^hitl:([^:]+):/.exec(buttonIds(message)[0] ?? '')?.[1] ?? '';
    return {
      text: () => message.content,
      isOpen: () => buttonIds(message).length > 0,
      async click(person: Person, option: Option) {
        clicks.push({ person, click: discord.click(users[person], message, `hitl:${approvalId}:${option}`) });
      },
      async waitForPrivateNote(person: Person, text: string) {
        const mine = new Set(clicks.filter((entry) => entry.person === person).map((entry) => entry.click.id));
        await discord.waitFor(
          () => discord.world.messages.find((note) => note.ephemeral && mine.has(note.interactionId ?? '') && note.content === text),
          `a private note to ${person}`,
        );
      },
    };
  };

  const conversation = (thread: FakeChannel, first: FakeMessage): Conversation => {
    let last = first;
    const asked = new Set<string>();
    return {
      async say(person: Person, text: string) {
        last = discord.say(users[person], thread, text);
      },
      async deliverAgain() {
        discord.redeliver(last);
      },
      async waitForAnswer(text: string) {
        await discord.waitFor(() => botMessages(discord, thread.id).find((message) => message.content === text), `the answer "${text}"`);
      },
      answers: () => botMessages(discord, thread.id).filter(isAnswer).map((message) => message.content),
      async waitForQuestion() {
        const message = await discord.waitFor(() => {
          const found = approvalIn(discord, thread.id);
          return found && !asked.has(found.id) ? found : botMessages(discord, thread.id).find((posted) => !asked.has(posted.id) && posted.history[0]?.includes('**Approval needed:**'));
        }, 'an approval question');
        asked.add(message.id);
        return question(message);
      },
    };
  };

  return {
    async start(model: FakeAnthropic) {
      anthropic = model;
      discord = await startFakeDiscord();
      users.alice = discord.addUser('alice');
      users.bob = discord.addUser('bob');
      dir = await mkdtemp(join(tmpdir(), 'skillbot-contract-discord-'));
      const skill = join(dir, 'skills', REPORT_SKILL.id);
      await mkdir(join(skill, 'scripts'), { recursive: true });
      await writeFile(join(skill, 'SKILL.md'), REPORT_SKILL.skillMd);
      await writeFile(join(skill, 'scripts', 'report.sh'), REPORT_SKILL.script);
      await chmod(join(skill, 'scripts', 'report.sh'), 0o755);
      await startBot();
    },
    async restart() {
      await bot.stop();
      await startBot();
    },
    async stop() {
      await bot?.stop();
      await discord?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
    async mention(person: Person, text: string) {
      const message = discord.say(users[person], discord.general, `<@${discord.bot.id}> ${text}`);
      const thread = await discord.waitFor(() => threadOn(discord, message.id), 'the thread the bot opens');
      return conversation(thread, message);
    },
  };
}
