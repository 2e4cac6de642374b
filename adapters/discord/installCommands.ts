// `/skills` with `command` (install, installed, update, remove) and `source`/`id`: translation only. The core's
// Installer fetches, scans, puts the review card to the channel's installers in a thread, and pins; this opens
// the thread (in a text channel) and posts the outcome there.
import { type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import { type Core, INSTALL_USAGE, type MessageFile, parseInstallCommand } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { downloadAttachment } from './attachments.ts';
import { type DiscordApi, discordErrorCode } from './discordApi.ts';
import { NO_THREAD_TEXT, threadName } from './threadNames.ts';
import { type Location, type Place, threadPlace, worldOf } from './places.ts';

export interface InstallDeps {
  core: Pick<Core, 'install'>;
  api: DiscordApi;
  log: Logger;
}

const DISCORD_LIMIT = 1900;

/** The command's words from its options: `install SOURCE`, `installed`, `update ID`, `remove ID`. */
export function installWords(interaction: ChatInputCommandInteraction): string | undefined {
  const command = interaction.options.getString('command');
  if (command === null) return undefined;
  const arg = command === 'install' ? interaction.options.getString('source') : interaction.options.getString('id');
  // `skill`: names of a collection's skills to install (spaces or commas between them), as `--skill` in Slack.
  const picks = command === 'install' ? (interaction.options.getString('skill') ?? '').split(/[\s,]+/).filter((name) => name !== '') : [];
  return [command, arg ?? '', ...picks.map((name) => `--skill ${name}`)].join(' ').trim();
}

/** Splits at line ends into messages Discord accepts. */
function parts(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current.length + line.length + 1 > DISCORD_LIMIT && current !== '') {
      out.push(current);
      current = '';
    }
    current += `${current === '' ? '' : '\n'}${line}`;
  }
  return current === '' ? out : [...out, current];
}

async function postAll(deps: InstallDeps, channelId: string, text: string): Promise<void> {
  for (const part of parts(text)) await deps.api.post(channelId, { content: part });
}

export async function runInstallInteraction(interaction: ChatInputCommandInteraction, words: string, location: Location, deps: InstallDeps): Promise<void> {
  const command = parseInstallCommand(words) ?? { kind: 'usage' as const, text: INSTALL_USAGE };
  const worldId = worldOf(location);
  if (worldId === undefined || location.kind === 'unknown') {
    await interaction.reply({ content: 'I cannot work in this kind of channel.', flags: MessageFlags.Ephemeral });
    return;
  }
  const userId = interaction.user.id;
  if (command.kind === 'install' && command.source === '') {
    await interaction.reply({ content: 'Give a `source` (github:owner/repo[/path][@ref] or a git URL), or attach a .skill file to a message that mentions me with `skills install`.', flags: MessageFlags.Ephemeral });
    return;
  }
  if (command.kind === 'usage' || command.kind === 'installed') {
    const text = command.kind === 'usage' ? command.text : deps.core.install.listText(worldId);
    await interaction.reply({ content: parts(text)[0] ?? '', flags: MessageFlags.Ephemeral });
    return;
  }
  if (command.kind === 'remove') {
    const chatId = location.kind === 'channel' ? `${worldId}/-` : location.place.chatId;
    const removed = await deps.core.install.remove({ worldId, chatId, requesterId: userId, id: command.id });
    await interaction.reply({ content: removed.ok ? `${removed.text} (by <@${userId}>)` : removed.text, ...(removed.ok ? { allowedMentions: { parse: [] } } : { flags: MessageFlags.Ephemeral }) });
    return;
  }
  const picked = command.kind === 'install' && command.pick.length > 0 ? ` (only ${command.pick.map((name) => `\`${name}\``).join(', ')})` : '';
  const what = command.kind === 'update' ? `an update of \`${command.id}\`` : `installing \`${command.source}\`${picked}`;
  const response = await interaction.reply({ content: `<@${userId}> asked for ${what}: fetching and scanning it; the review follows in the thread.`, allowedMentions: { parse: [] }, withResponse: true });
  let place: Place;
  if (location.kind === 'channel') {
    const messageId = response.resource?.message?.id;
    if (messageId === undefined) throw new Error('Discord did not say which message answers the command');
    try {
      const threadId = await deps.api.startThread(location.channelId, messageId, threadName(words, 'Install'));
      place = threadPlace(location.guildId, location.channelId, threadId);
    } catch (error) {
      deps.log.warn({ err: error, code: discordErrorCode(error) }, 'opening a thread for an install failed');
      await interaction.followUp({ content: NO_THREAD_TEXT, flags: MessageFlags.Ephemeral });
      return;
    }
  } else {
    place = location.place;
  }
  const requested = { worldId: place.worldId, chatId: place.chatId, requesterId: userId };
  const result = command.kind === 'update' ? await deps.core.install.update({ ...requested, id: command.id }) : await deps.core.install.install({ ...requested, source: command.source, pick: command.pick });
  await postAll(deps, place.channelId, result.text);
}

/** `@skillbot skills install` with a .skill or .zip attached, in a thread the bot answers in. */
export function isFileInstall(text: string, files: readonly MessageFile[]): MessageFile | undefined {
  if (!/^\/?skills\s+install\s*$/i.test(text.trim())) return undefined;
  return files.find((file) => /\.(skill|zip)$/i.test(file.name));
}

export async function installSharedFile(place: Place, userId: string, file: MessageFile, deps: InstallDeps & { apiUrl?: string; maxBytes: number }): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = await downloadAttachment(file, { maxBytes: deps.maxBytes, ...(deps.apiUrl ? { apiUrl: deps.apiUrl } : {}) });
  } catch (error) {
    await deps.api.post(place.channelId, { content: `I could not download ${file.name} (${(error as Error).message}).` });
    return;
  }
  const result = await deps.core.install.install({ worldId: place.worldId, chatId: place.chatId, requesterId: userId, source: '', file: { name: file.name, bytes } });
  await postAll(deps, place.channelId, result.text);
}
