// The real Discord launcher (discord.js) on a real App, between the Discord and Anthropic fakes.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiscordLauncher } from '../../adapters/discord/index.ts';
import { type App, createApp } from '../../src/app.ts';
import type { RunningPlatform } from '../../src/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { HttpServer } from '../../src/httpServer.ts';
import { silentLogger } from '../../src/log.ts';
import type { FakeAnthropic } from '../fakes/anthropic.ts';
import type { FakeDiscord, FakeMessage } from '../fakes/discord.ts';

/** A skill whose body names a script, so loading it asks for approval. */
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
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-discord-'));
  const skillsRoot = join(dir, 'skills');
  const scripts = join(skillsRoot, REPORT_SKILL.id, 'scripts');
  await mkdir(scripts, { recursive: true });
  await writeFile(join(skillsRoot, REPORT_SKILL.id, 'SKILL.md'), REPORT_SKILL.skillMd);
  await writeFile(join(scripts, 'report.sh'), REPORT_SKILL.script);
  await chmod(join(scripts, 'report.sh'), 0o755);
  await mkdir(join(skillsRoot, NOTES_SKILL.id), { recursive: true });
  await writeFile(join(skillsRoot, NOTES_SKILL.id, 'SKILL.md'), NOTES_SKILL.skillMd);
  await mkdir(join(skillsRoot, HIDDEN_SKILL.id), { recursive: true });
  await writeFile(join(skillsRoot, HIDDEN_SKILL.id, 'SKILL.md'), HIDDEN_SKILL.skillMd);
  return { dir, skillsRoot, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** How long stop() lets running turns finish before handing their chats over (`skillbot start` allows more). */
const STOP_DEADLINE_MS = 1000;

export interface DiscordBot {
  app: App;
  running: RunningPlatform;
  /** Stops the dispatcher, the platform, then the app, in the order `skillbot start` does. */
  stop(): Promise<void>;
}

export async function startDiscordBot(options: {
  discord: FakeDiscord;
  anthropic: FakeAnthropic;
  skillsRoot: string;
  storeUrl?: string;
  /** Register commands to the fake's guild (DISCORD_GUILD_ID); default true. */
  guildCommands?: boolean;
  /** Start the durable queue's sweeper after the platform, as `skillbot start` does; default true. */
  sweeper?: boolean;
  env?: Record<string, string>;
}): Promise<DiscordBot> {
  const config = loadConfig({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: options.anthropic.url,
    SKILLS_DIRS: options.skillsRoot,
    STORE_URL: options.storeUrl ?? 'memory://',
    DISCORD_TOKEN: options.discord.token,
    DISCORD_API_URL: options.discord.url,
    ...(options.guildCommands === false ? {} : { DISCORD_GUILD_ID: options.discord.guildId }),
    APPROVAL_TIMEOUT_MS: '30000',
    ...options.env,
  });
  const logger = silentLogger();
  const app = await createApp(config, logger, { watchSkills: false, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 }, queue: { sweepMs: 200 } });
  let running: RunningPlatform;
  try {
    running = await createDiscordLauncher({ shutdownGraceMs: 1000 }).start(app, new HttpServer(logger, async () => ({ ok: true, detail: {} })));
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

/** The custom_ids of a message's buttons. */
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
