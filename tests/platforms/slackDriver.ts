// The platform contract's Slack side: signed Events API deliveries and button clicks into Bolt, read back from
// the Slack fake's Web API record.
import { TURN_STOP_ACTION_ID } from '../../adapters/slack/turnControls.ts';
import { stoppedText } from '../../src/agent/turnMessages.ts';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import { type EphemeralMessage, type FakeSlack, type PostedMessage, startFakeSlack, type UserMessage } from '../fakes/slack.ts';
import { ALICE, approvalIdOf, BOB, CHANNEL, repliesIn, type SlackBot, startSlackBot } from '../slack/harness.ts';
import type { BotSetup, Conversation, Option, Person, PlatformDriver, Question, SentFile } from './driver.ts';

const USERS: Record<Person, string> = { alice: ALICE, bob: BOB };
const hasButtons = (message: PostedMessage): boolean => JSON.stringify(message.blocks ?? []).includes('"actions"');
const stoppedBy = (person: Person): string => stoppedText(`<@${USERS[person]}>`);
/**
 * The turn's one message holds every text of the turn, the answer last; while it works it shows progress ("Working
 * on it…"), and a stopped turn ends it with "Stopped by": neither is an answer.
 */
const isAnswer = (message: PostedMessage): boolean => !/…_?$/.test(message.text) && !/(^|\n\n)Stopped by \S+\.$/.test(message.text);
/** A message reads `text` when it holds it (after what the model wrote before its tool calls), or matches it. */
const reads = (message: PostedMessage, text: string | RegExp): boolean => (typeof text === 'string' ? message.text.includes(text) : text.test(message.text));

/** The Stop button a message carries (its value is the turn id), if any. */
function stopButtonOf(message: PostedMessage): { value: string } | undefined {
  const blocks = (message.blocks ?? []) as Array<{ elements?: Array<{ action_id?: string; value: string }> }>;
  return blocks.flatMap((block) => block.elements ?? []).find((element) => element.action_id === TURN_STOP_ACTION_ID);
}

export function slackDriver(): PlatformDriver {
  let slack: FakeSlack;
  let anthropic: FakeAnthropic;
  let setup: BotSetup;
  let bot: SlackBot;
  /** Private notes a wait has already taken: a later wait needs a new one. */
  const seenNotes = new Set<EphemeralMessage>();

  const startBot = async () => {
    bot = await startSlackBot({ slack, anthropic, skillsRoot: setup.skillsDirs, storeUrl: setup.storeUrl, env: setup.env });
  };

  const question = (message: PostedMessage): Question => {
    const approvalId = approvalIdOf(message);
    return {
      text: () => JSON.stringify(message.blocks ?? []),
      isOpen: () => hasButtons(message),
      async click(person: Person, option: Option) {
        await bot.sender.click({ user: USERS[person], channel: CHANNEL, messageTs: message.ts, threadTs: message.threadTs ?? '', actionId: `hitl_${option}`, value: approvalId });
      },
    };
  };

  const conversation = (root: string, first: UserMessage, firstEventId: string): Conversation => {
    let last = { input: first, eventId: firstEventId, mention: true };
    const asked = new Set<string>();
    const deliver = (input: UserMessage, mention: boolean, options?: Parameters<SlackBot['sender']['message']>[1]) =>
      mention ? bot.sender.mention(input, options) : bot.sender.message(input, options);
    return {
      async say(person, text, options = {}) {
        const mention = options.mention === true;
        const input = { channel: CHANNEL, user: USERS[person], threadTs: root, ts: bot.sender.nextTs(), text: mention ? `<@${slack.info.botUserId}> ${text}` : text };
        const { eventId } = await deliver(input, mention);
        last = { input, eventId, mention };
      },
      async deliverAgain() {
        await deliver(last.input, last.mention, { eventId: last.eventId, retryNum: 1, retryReason: 'http_timeout' });
      },
      async waitForAnswer(text) {
        return (await slack.waitFor(() => repliesIn(slack, CHANNEL, root).find((message) => isAnswer(message) && reads(message, text)), { what: `an answer ${String(text)}` })).text;
      },
      answers: () => repliesIn(slack, CHANNEL, root).filter(isAnswer).map((message) => message.text),
      messagesThatHeld: (text) =>
        [...slack.messages, ...slack.deleted].filter(
          (message) => message.channel === CHANNEL && message.threadTs === root && [...message.edits.map((edit) => edit.text), message.text].some((version) => version.includes(text)),
        ).length,
      messagesDeleted: () => slack.deleted.filter((message) => message.channel === CHANNEL && message.threadTs === root).length,
      async waitForQuestion() {
        const message = await slack.waitFor(
          () => slack.thread(CHANNEL, root).find((posted) => !asked.has(posted.ts) && JSON.stringify(posted.blocks ?? []).includes('hitl_')),
          { what: 'an approval question' },
        );
        asked.add(message.ts);
        return question(message);
      },
      async clickStop(person) {
        const message = await slack.waitFor(() => slack.thread(CHANNEL, root).find((posted) => stopButtonOf(posted)), { what: 'the Stop button' });
        const turnId = stopButtonOf(message)?.value ?? '';
        await bot.sender.click({ user: USERS[person], channel: CHANNEL, messageTs: message.ts, threadTs: root, actionId: TURN_STOP_ACTION_ID, value: turnId });
      },
      hasStopButton: () => slack.thread(CHANNEL, root).some((posted) => stopButtonOf(posted) !== undefined),
      async waitForStopped(person) {
        await slack.waitFor(() => repliesIn(slack, CHANNEL, root).find((message) => message.text.endsWith(stoppedBy(person))), { what: `"${stoppedBy(person)}"` });
      },
      async waitForPrivateNote(person, text) {
        const note = await slack.waitFor(() => slack.ephemerals.find((entry) => !seenNotes.has(entry) && entry.user === USERS[person] && (typeof text === 'string' ? entry.text === text : text.test(entry.text))), {
          what: `a private note to ${person}`,
        });
        seenNotes.add(note);
      },
      async signInNote(person, server) {
        const note = await slack.waitFor(
          () => slack.ephemerals.find((entry) => !seenNotes.has(entry) && entry.user === USERS[person] && entry.text.startsWith(`To let Claude use ${server} for you, connect your account: `)),
          { what: `a sign-in link to ${server} for ${person}` },
        );
        seenNotes.add(note);
        return note.text;
      },
      uploadedFiles: () =>
        slack.uploads.filter((upload) => upload.channel === CHANNEL && upload.threadTs === root).map((upload) => ({ name: upload.name, text: upload.bytes.toString('utf8'), caption: upload.title })),
    };
  };

  return {
    async start(model, botSetup) {
      anthropic = model;
      setup = botSetup;
      slack = await startFakeSlack();
      await startBot();
    },
    async restart() {
      await bot.stop();
      await startBot();
    },
    async stop() {
      await bot?.stop();
      await slack?.close();
    },
    async mention(person: Person, text: string, files: SentFile[] = []) {
      const ts = bot.sender.nextTs();
      const shared = files.map((file) => slack.shareFile({ name: file.name, mimetype: file.type, bytes: file.bytes }));
      const input = { channel: CHANNEL, user: USERS[person], ts, text: `<@${slack.info.botUserId}> ${text}`, ...(shared.length > 0 ? { files: shared } : {}) };
      const { eventId } = await bot.sender.mention(input);
      return conversation(ts, input, eventId);
    },
  };
}
