// The real Discord launcher (discord.js) on a real App, between the Discord and Anthropic fakes.
import { afterAll, beforeAll } from 'vitest';
import { createDiscordLauncher } from '../../adapters/discord/index.ts';
import type { App } from '../../src/app.ts';
import type { RunningPlatform } from '../../src/platform/index.ts';
import { type FakeAnthropic, type FakeAnthropicOptions, startFakeAnthropic } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeDiscordOptions, type FakeMessage, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { createTestApp, type TestAppOptions } from '../platforms/app.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
export { HIDDEN_SKILL, makeSkillsDir, NOTES_SKILL, REPORT_SKILL } from '../platforms/skills.ts';

/** How long stop() lets running turns finish before handing their chats over (`skillbot start` allows more). */
const STOP_DEADLINE_MS = 1000;

export interface DiscordBot {
  app: App;
  running: RunningPlatform;
  /** Stops the dispatcher, the platform, then the app, in the order `skillbot start` does. */
  stop(): Promise<void>;
}

export async function startDiscordBot(
  options: TestAppOptions & {
    discord: FakeDiscord;
    /** Register commands to the fake's guild (DISCORD_GUILD_ID); default true. */
    guildCommands?: boolean;
    /** Start the durable queue's sweeper after the platform, as `skillbot start` does; default true. */
    sweeper?: boolean;
  },
): Promise<DiscordBot> {
  const platformEnv = {
    DISCORD_TOKEN: options.discord.token,
    DISCORD_API_URL: options.discord.url,
    ...(options.guildCommands === false ? {} : { DISCORD_GUILD_ID: options.discord.guildId }),
  };
  const { app, http } = await createTestApp(options, platformEnv, { queue: { sweepMs: 200 } });
  let running: RunningPlatform;
  try {
    running = await createDiscordLauncher({ shutdownGraceMs: 1000 }).start(app.core, http);
  } catch (error) {
    await app.close();
    throw error;
  }
  if (options.sweeper !== false) app.dispatcher.start();
  return {
    app,
    running,
    async stop() {
      await app.dispatcher.stop(STOP_DEADLINE_MS);
      await running.stop();
      await app.close();
    },
  };
}

export interface DiscordSetup {
  discord: FakeDiscord;
  anthropic: FakeAnthropic;
  skills: SkillsDir;
  bot: DiscordBot;
  alice: FakeUser;
  bob: FakeUser;
}

/**
 * The set-up most Discord test files share: before their tests, the Discord and Anthropic fakes with two people,
 * a skills folder and a bot between them, handed to `use`; after them, all stopped.
 */
export function useDiscordBot(
  use: (setup: DiscordSetup) => void,
  options: { discord?: FakeDiscordOptions; anthropic?: FakeAnthropicOptions; env?: Record<string, string> } = {},
): void {
  const setup: Partial<DiscordSetup> = {};
  beforeAll(async () => {
    const discord = (setup.discord = await startFakeDiscord(options.discord));
    const anthropic = (setup.anthropic = await startFakeAnthropic(options.anthropic));
    const skills = (setup.skills = await makeSkillsDir());
    setup.alice = discord.addUser('alice');
    setup.bob = discord.addUser('bob');
    setup.bot = await startDiscordBot({ discord, anthropic, skillsRoot: skills.skillsRoot, env: options.env });
    use(setup as DiscordSetup);
  });
  afterAll(async () => {
    await setup.bot?.stop();
    await setup.discord?.close();
    await setup.anthropic?.close();
    await setup.skills?.remove();
  });
}

/** What the bot shows in a channel: its visible messages, oldest first. */
export function botMessages(discord: FakeDiscord, channelId: string): FakeMessage[] {
  return discord.messagesIn(channelId).filter((message) => message.author.id === discord.bot.id);
}

/** Waits until a bot message in the channel matches, and returns it. */
export function waitForBotMessage(discord: FakeDiscord, channelId: string, text: string | RegExp): Promise<FakeMessage> {
  return discord.waitFor(
    () => botMessages(discord, channelId).find((message) => (typeof text === 'string' ? message.content === text : text.test(message.content))),
    `a bot message ${String(text)} in ${channelId}`,
  );
}

/** What a message reads: its content, then the text of its Components V2 text displays, in order. */
export function messageText(message: FakeMessage): string {
  const texts: string[] = [];
  const visit = (component: unknown) => {
    const { type, content, components } = (component ?? {}) as { type?: number; content?: string; components?: unknown[] };
    if (type === 10 && typeof content === 'string') texts.push(content);
    for (const child of components ?? []) visit(child);
  };
  for (const component of message.components) visit(component);
  return [message.content, ...texts].filter(Boolean).join('\n');
}

/** The custom_ids of a message's buttons. */
export function buttonIds(message: FakeMessage): string[] {
  return (message.components as Array<{ components?: Array<{ custom_id?: string }> }>).flatMap((row) => (row.components ?? []).map((button) => button.custom_id ?? ''));
}

/** The approval question in a channel, once posted (found by its first text, which stays in its history after edits). */
export function approvalIn(discord: FakeDiscord, channelId: string): FakeMessage | undefined {
  return botMessages(discord, channelId).find((message) => message.history[0]?.includes('**Approval needed:**'));
}

/** The thread the bot opened on a message (a thread started from a message takes its id). */
export function threadOn(discord: FakeDiscord, messageId: string) {
  return discord.threads().find((thread) => thread.id === messageId);
}
