// The platform contract's Slack side: signed Events API deliveries and button clicks into Bolt, read back from
// the Slack fake's Web API record.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack, type UserMessage } from '../fakes/slack.ts';
import { ALICE, approvalIdOf, BOB, CHANNEL, repliesIn, type SlackBot, startSlackBot, waitForReply } from '../slack/harness.ts';
import { type Conversation, type Option, type Person, type PlatformDriver, type Question, REPORT_SKILL } from './contract.ts';

const USERS: Record<Person, string> = { alice: ALICE, bob: BOB };
const hasButtons = (message: PostedMessage): boolean => JSON.stringify(message.blocks ?? []).includes('"actions"');
/** Progress shows in the placeholder ("Working on it…"): not an answer yet. */
const isAnswer = (message: PostedMessage): boolean => !/…_?$/.test(message.text);

export function slackDriver(): PlatformDriver {
  let slack: FakeSlack;
  let anthropic: FakeAnthropic;
  let bot: SlackBot;
  let dir: string;

  const startBot = async () => {
    bot = await startSlackBot({ slack, anthropic, skillsRoot: join(dir, 'skills'), storeUrl: `sqlite://${join(dir, 'state.sqlite')}` });
  };

  const question = (message: PostedMessage): Question => {
    const approvalId = approvalIdOf(message);
    return {
      text: () => JSON.stringify(message.blocks ?? []),
      isOpen: () => hasButtons(message),
      async click(person: Person, option: Option) {
        await bot.sender.click({ user: USERS[person], channel: CHANNEL, messageTs: message.ts, threadTs: message.threadTs ?? '', actionId: `hitl_${option}`, value: approvalId });
      },
      async waitForPrivateNote(person: Person, text: string) {
        await slack.waitFor(() => slack.ephemerals.find((entry) => entry.user === USERS[person] && entry.text === text), { what: `a private note to ${person}` });
      },
    };
  };

  const conversation = (root: string, first: UserMessage, firstEventId: string): Conversation => {
    let last = { input: first, eventId: firstEventId, mention: true };
    const asked = new Set<string>();
    return {
      async say(person: Person, text: string) {
        const input = { channel: CHANNEL, user: USERS[person], threadTs: root, ts: bot.sender.nextTs(), text };
        const { eventId } = await bot.sender.message(input);
        last = { input, eventId, mention: false };
      },
      async deliverAgain() {
        const send = last.mention ? bot.sender.mention.bind(bot.sender) : bot.sender.message.bind(bot.sender);
        await send(last.input, { eventId: last.eventId, retryNum: 1, retryReason: 'http_timeout' });
      },
      async waitForAnswer(text: string) {
        await waitForReply(slack, CHANNEL, root, text);
      },
      answers: () => repliesIn(slack, CHANNEL, root).filter(isAnswer).map((message) => message.text),
      async waitForQuestion() {
        const message = await slack.waitFor(
          () => slack.thread(CHANNEL, root).find((posted) => !asked.has(posted.ts) && JSON.stringify(posted.blocks ?? []).includes('hitl_')),
          { what: 'an approval question' },
        );
        asked.add(message.ts);
        return question(message);
      },
    };
  };

  return {
    async start(model: FakeAnthropic) {
      anthropic = model;
      slack = await startFakeSlack();
      dir = await mkdtemp(join(tmpdir(), 'skillbot-contract-slack-'));
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
      await slack?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
    async mention(person: Person, text: string) {
      const ts = bot.sender.nextTs();
      const input = { channel: CHANNEL, user: USERS[person], ts, text: `<@${slack.info.botUserId}> ${text}` };
      const { eventId } = await bot.sender.mention(input);
      return conversation(ts, input, eventId);
    },
  };
}
