// `/skills` with `command` (install, installed, update, remove) and `source`/`id`: translation only. The core's
// Installer fetches, scans, puts the review card to the channel's installers in a thread, and pins; this opens
// the thread (in a text channel) and posts the outcome there.
import { type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import { type Core, INSTALL_USAGE, type InstallPlace, type MessageFile, parseInstallCommand } from '../../src/platform/index.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';
import type { Logger } from '../../src/ops/log.ts';
import { downloadAttachment } from './files.ts';
import { type DiscordApi, discordErrorCode } from './discordApi.ts';
import { NO_THREAD_TEXT, threadName } from './threadNames.ts';
import { channelOfChat, type Location, type Place, threadPlace, worldOf } from './places.ts';
import { DISCORD_MESSAGES } from './messageLimits.ts';

export interface InstallDeps {
  core: Pick<Core, 'install'>;
  api: DiscordApi;
  log: Logger;
}


/** The command's words from its options: `install SOURCE`, `installed`, `update ID`, `remove ID`. */
export function installWords(interaction: ChatInputCommandInteraction): string | undefined {
  const command = interaction.options.getString('command');
  if (command === null) return undefined;
  const arg = command === 'install' ? interaction.options.getString('source') : interaction.options.getString('id');
  // `skill`: names of a collection's skills to install (spaces or commas between them), as `--skill` in Slack.
  const picks = command === 'install' ? (interaction.options.getString('skill') ?? '').split(/[\s,]+/).filter((name) => name !== '') : [];
  return [command, arg ?? '', ...picks.map((name) => `--skill ${name}`)].join(' ').trim();
}

/** Where an interaction's command answers: privately or in reply first, then in the review's thread. */
function interactionPlace(interaction: ChatInputCommandInteraction, words: string, location: Location & { kind: 'channel' | 'dm' | 'botThread' | 'otherThread' }, worldId: string, deps: InstallDeps): InstallPlace {
  const answered = () => interaction.replied || interaction.deferred;
  return {
    worldId,
    userId: interaction.user.id,
    ...(location.kind === 'channel' ? {} : { chatId: location.place.chatId }),
    replyPrivately: async (text) => {
      const content = splitMessage(text, DISCORD_MESSAGES)[0] ?? '';
      await (answered() ? interaction.followUp({ content, flags: MessageFlags.Ephemeral }) : interaction.reply({ content, flags: MessageFlags.Ephemeral }));
    },
    post: async (text, chatId) => {
      if (!answered()) await interaction.reply({ content: text, allowedMentions: { parse: [] } });
      else await deps.api.post(chatId === undefined ? (interaction.channelId ?? '') : channelOfChat(chatId), { content: text });
    },
    startReview: async (note) => {
      const response = await interaction.reply({ content: note, allowedMentions: { parse: [] }, withResponse: true });
      if (location.kind !== 'channel') return location.place.chatId;
      const messageId = response.resource?.message?.id;
      if (messageId === undefined) throw new Error('Discord did not say which message answers the command');
      try {
        const threadId = await deps.api.startThread(location.channelId, messageId, threadName(words, 'Install'));
        return threadPlace(location.guildId, location.channelId, threadId).chatId;
      } catch (error) {
        deps.log.warn({ err: error, code: discordErrorCode(error) }, 'opening a thread for an install failed');
        await interaction.followUp({ content: NO_THREAD_TEXT, flags: MessageFlags.Ephemeral });
        return undefined;
      }
    },
    fetchFile: () => Promise.reject(new Error('a slash command brings no file')),
    profile: DISCORD_MESSAGES,
  };
}

export async function runInstallInteraction(interaction: ChatInputCommandInteraction, words: string, location: Location, deps: InstallDeps): Promise<void> {
  const command = parseInstallCommand(words) ?? { kind: 'usage' as const, text: INSTALL_USAGE };
  const worldId = worldOf(location);
  if (worldId === undefined || location.kind === 'unknown') {
    await interaction.reply({ content: 'I cannot work in this kind of channel.', flags: MessageFlags.Ephemeral });
    return;
  }
  await deps.core.install.run(interactionPlace(interaction, words, location, worldId, deps), command);
}

/** `@skillbot skills install` with a .skill or .zip attached, in a thread the bot answers in. */
export function isFileInstall(text: string, files: readonly MessageFile[]): MessageFile | undefined {
  if (!/^\/?skills\s+install\s*$/i.test(text.trim())) return undefined;
  return files.find((file) => /\.(skill|zip)$/i.test(file.name));
}

/** Installs a .skill file attached to a message in a bot thread: the review and the result follow there. */
export async function installSharedFile(place: Place, userId: string, file: MessageFile, deps: InstallDeps & { apiUrl?: string }): Promise<void> {
  const post = async (text: string) => void (await deps.api.post(place.channelId, { content: text }));
  await deps.core.install.run(
    {
      worldId: place.worldId,
      userId,
      chatId: place.chatId,
      files: [file],
      replyPrivately: post,
      post,
      startReview: async () => place.chatId,
      fetchFile: (shared, maxBytes) => downloadAttachment(shared, { maxBytes, ...(deps.apiUrl ? { apiUrl: deps.apiUrl } : {}) }),
      profile: DISCORD_MESSAGES,
    },
    { kind: 'install', source: '', pick: [] },
  );
}
