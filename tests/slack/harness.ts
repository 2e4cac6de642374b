// The real Slack launcher (Bolt over HTTP) on a real App, between the Slack and Anthropic fakes.
import { afterAll, beforeAll } from 'vitest';
import { slackLauncher } from '../../adapters/slack/index.ts';
export { PLACEHOLDER_TEXT as PLACEHOLDER } from '../../adapters/slack/turnSink.ts';
import type { App } from '../../src/app.ts';
import type { RunningPlatform } from '../../src/platform/index.ts';
import { type FakeAnthropic, type FakeAnthropicOptions, startFakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeSlack, type FakeSlackOptions, type PostedMessage, SlackSender, startFakeSlack } from '../fakes/slack.ts';
import { createTestApp, type TestAppOptions } from '../platforms/app.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
export { HIDDEN_SKILL, makeSkillsDir, NOTES_SKILL, REPORT_SKILL } from '../platforms/skills.ts';

export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const CHANNEL = 'C0GENERAL';
export const DM = 'D0ALICE';
export const ALICE = 'UALICE';
export const BOB = 'UBOB';

export interface SlackBot {
  app: App;
  running: RunningPlatform;
  /** Sends what Slack sends, signed, to this bot's /slack/events. */
  sender: SlackSender;
  eventsUrl: string;
  /** Stops the platform, the listener and the app, in the order `skillbot start` does. */
  stop(): Promise<void>;
}

/** How long running turns get to finish when the bot stops, as `skillbot start` gives them (shorter: tests). */
const STOP_DEADLINE_MS = 1000;

/** Starts the bot as `skillbot start` does: the platform, then the durable queue's sweeper. */
export async function startSlackBot(options: TestAppOptions & { slack: FakeSlack }): Promise<SlackBot> {
  const { app, http } = await createTestApp(
    options,
    {
      SLACK_BOT_TOKEN: options.slack.info.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: options.slack.apiUrl,
    },
    { queue: { sweepMs: 200 } },
  );
  let running: RunningPlatform;
  try {
    running = await slackLauncher.start(app.core, http);
  } catch (error) {
    await app.close();
    throw error;
  }
  app.dispatcher.start();
  // As `skillbot start` does: webhooks on the listener, the routines' scheduler once the platform runs.
  http.routePrefix('POST', '/hooks/', app.routines.hookHandler());
  await app.routines.start();
  const port = await http.listen(0, '127.0.0.1');
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  return {
    app,
    running,
    sender: new SlackSender(eventsUrl, SIGNING_SECRET, options.slack.info),
    eventsUrl,
    async stop() {
      await app.dispatcher.stop(STOP_DEADLINE_MS);
      await running.stop();
      await http.close();
      await app.close();
    },
  };
}

export interface SlackSetup {
  slack: FakeSlack;
  anthropic: FakeAnthropic;
  skills: SkillsDir;
  bot: SlackBot;
}

/**
 * The set-up most Slack test files share: before their tests, the Slack and Anthropic fakes, a skills folder (with
 * copies of the named example skills) and a bot between them, handed to `use`; after them, all stopped.
 */
export function useSlackBot(
  use: (setup: SlackSetup) => void,
  options: { slack?: FakeSlackOptions; anthropic?: FakeAnthropicOptions; examples?: string[]; env?: Record<string, string> } = {},
): void {
  const setup: Partial<SlackSetup> = {};
  beforeAll(async () => {
    const slack = (setup.slack = await startFakeSlack(options.slack));
    const anthropic = (setup.anthropic = await startFakeAnthropic(options.anthropic));
    const skills = (setup.skills = await makeSkillsDir(undefined, options.examples));
    setup.bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: options.env });
    use(setup as SlackSetup);
  });
  afterAll(async () => {
    await setup.bot?.stop();
    await setup.slack?.close();
    await setup.anthropic?.close();
    await setup.skills?.remove();
  });
}

/** The bot's text replies in a thread (the placeholder, which becomes the answer's first part, and any further parts). */
export function repliesIn(slack: FakeSlack, channel: string, threadTs: string): PostedMessage[] {
  return slack.thread(channel, threadTs).filter((message) => message.threadTs === threadTs && !message.blocks);
}

/** Waits until a reply in the thread reads `text`, and returns it. */
export function waitForReply(slack: FakeSlack, channel: string, threadTs: string, text: string | RegExp): Promise<PostedMessage> {
  return slack.waitFor(
    () => repliesIn(slack, channel, threadTs).find((message) => (typeof text === 'string' ? message.text === text : text.test(message.text))),
    { what: `a reply ${String(text)} in ${channel}/${threadTs}` },
  );
}

/** A slash command `user` gives in `channel`, and the text of its private answer (through its response_url). */
export async function commandAnswer(setup: { slack: FakeSlack; bot: SlackBot }, name: string, text: string, where: { channel: string; user: string }): Promise<string> {
  const { slack, bot } = setup;
  const responseUrl = slack.responseUrl();
  await bot.sender.command(name, text, { ...where, responseUrl });
  const answer = await slack.waitFor(() => slack.responses.find((entry) => responseUrl.endsWith(entry.id)), { what: `the answer to ${name} ${text}` });
  return String(answer.body.text);
}

/** The approval question posted in a thread, once there. */
export function approvalIn(slack: FakeSlack, channel: string, threadTs: string): PostedMessage | undefined {
  return slack.thread(channel, threadTs).find((message) => JSON.stringify(message.blocks ?? []).includes('hitl_'));
}

/** The approval id a question's buttons carry. */
export function approvalIdOf(message: PostedMessage): string {
  const actions = (message.blocks ?? []).find((block) => (block as { type?: string }).type === 'actions') as
    | { elements: Array<{ value: string }> }
    | undefined;
  const value = actions?.elements[0]?.value;
  if (!value) throw new Error('the message carries no approval buttons');
  return value;
}
