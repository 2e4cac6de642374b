// The real Slack launcher (Bolt over HTTP) on a real App, between the Slack and Anthropic fakes.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slackLauncher } from '../../adapters/slack/index.ts';
export { PLACEHOLDER_TEXT as PLACEHOLDER } from '../../adapters/slack/turnSink.ts';
import { type App, createApp } from '../../src/app.ts';
import type { RunningPlatform } from '../../src/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { HttpServer } from '../../src/httpServer.ts';
import { silentLogger } from '../../src/log.ts';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeSlack, SlackSender, type PostedMessage } from '../fakes/slack.ts';

export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const CHANNEL = 'C0GENERAL';
export const DM = 'D0ALICE';
export const ALICE = 'UALICE';
export const BOB = 'UBOB';

/** A skill with a script the body names, so loading it asks for approval. */
export const REPORT_SKILL = {
  id: 'disk-report',
  skillMd: '---\nname: disk-report\ndescription: Report disk usage of the project.\n---\n# Disk report\nRun scripts/report.sh and summarise its output.\n',
  script: '#!/bin/sh\necho "disk used: 42%"\n',
};
export const NOTES_SKILL = {
  id: 'release-notes',
  skillMd: '---\nname: release-notes\ndescription: Write release notes from a list of commits.\nargument-hint: "[commits]"\n---\n# Release notes\nGroup commits into Features and Fixes.\n',
};
/** Claude Code's `user-invocable: false`: the model may load it; people are never offered it. */
export const HIDDEN_SKILL = {
  id: 'house-style',
  skillMd: '---\nname: house-style\ndescription: The house writing style.\nuser-invocable: false\n---\n# House style\nShort sentences.\n',
};

/** A temp dir with a skills root holding REPORT_SKILL and NOTES_SKILL. */
export async function makeSkillsDir(): Promise<{ dir: string; skillsRoot: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-slack-'));
  const skillsRoot = join(dir, 'skills');
  await mkdir(join(skillsRoot, REPORT_SKILL.id, 'scripts'), { recursive: true });
  await writeFile(join(skillsRoot, REPORT_SKILL.id, 'SKILL.md'), REPORT_SKILL.skillMd);
  await writeFile(join(skillsRoot, REPORT_SKILL.id, 'scripts', 'report.sh'), REPORT_SKILL.script);
  await chmod(join(skillsRoot, REPORT_SKILL.id, 'scripts', 'report.sh'), 0o755);
  await mkdir(join(skillsRoot, NOTES_SKILL.id), { recursive: true });
  await writeFile(join(skillsRoot, NOTES_SKILL.id, 'SKILL.md'), NOTES_SKILL.skillMd);
  await mkdir(join(skillsRoot, HIDDEN_SKILL.id), { recursive: true });
  await writeFile(join(skillsRoot, HIDDEN_SKILL.id, 'SKILL.md'), HIDDEN_SKILL.skillMd);
  return { dir, skillsRoot, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface SlackBot {
  app: App;
  running: RunningPlatform;
  /** Sends what Slack sends, signed, to this bot's /slack/events. */
  sender: SlackSender;
  eventsUrl: string;
  /** Stops the platform, the listener and the app, in the order `skillbot start` does. */
  stop(): Promise<void>;
}

export async function startSlackBot(options: {
  slack: FakeSlack;
  anthropic: FakeAnthropic;
  skillsRoot: string;
  storeUrl?: string;
  env?: Record<string, string>;
}): Promise<SlackBot> {
  const config = loadConfig({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: options.anthropic.url,
    SKILLS_DIRS: options.skillsRoot,
    STORE_URL: options.storeUrl ?? 'memory://',
    SLACK_BOT_TOKEN: options.slack.info.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: options.slack.apiUrl,
    APPROVAL_TIMEOUT_MS: '30000',
    ...options.env,
  });
  const logger = silentLogger();
  const app = await createApp(config, logger, { watchSkills: false, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 } });
  const http = new HttpServer(logger, async () => ({ ok: true, detail: {} }));
  let running: RunningPlatform;
  try {
    running = await slackLauncher.start(app, http);
  } catch (error) {
    await app.close();
    throw error;
  }
  const port = await http.listen(0, '127.0.0.1');
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  return {
    app,
    running,
    sender: new SlackSender(eventsUrl, SIGNING_SECRET, options.slack.info),
    eventsUrl,
    async stop() {
      await running.stop();
      await http.close();
      await app.close();
    },
  };
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
