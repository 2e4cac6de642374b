// Stopping a running turn from Discord: the Stop button on its status line, or a message that is just "stop".
import { type ButtonInteraction, type Message, MessageFlags } from 'discord.js';
import { type Core, isStopText, STOP_NOT_ALLOWED_TEXT, type StopResult } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import type { DiscordApi } from './discordApi.ts';
import { channelFactsOf, locate, type Place, type ThreadDirectory } from './places.ts';

/** The public contract (docs/contract.md): a Stop button's custom_id is `stop:<turnId>`. */
export const STOP_PREFIX = 'stop:';
export const NOTHING_RUNNING_TEXT = 'Nothing is running here, so there is nothing to stop.';

export interface StopDeps {
  core: Pick<Core, 'turns'>;
  threads: ThreadDirectory;
  api: DiscordApi;
  log: Logger;
}

const privateText = (result: StopResult): string | undefined =>
  result.kind === 'not_allowed' ? STOP_NOT_ALLOWED_TEXT : result.kind === 'not_running' ? NOTHING_RUNNING_TEXT : undefined;

/** A Stop click: the turn named by the button, in the chat of the button's channel. Refusals are ephemeral. */
export async function answerStopClick(interaction: ButtonInteraction, deps: StopDeps): Promise<void> {
  const turnId = interaction.customId.slice(STOP_PREFIX.length);
  const location = await locate(channelFactsOf(interaction.channel, interaction.channelId, interaction.guildId), deps.threads);
  const result =
    location.kind === 'channel' || location.kind === 'unknown'
      ? ({ kind: 'not_running' } as const)
      : await deps.core.turns.stop({ worldId: location.place.worldId, chatId: location.place.chatId, userId: interaction.user.id, turnId });
  const text = privateText(result);
  if (text) await interaction.reply({ content: text, flags: MessageFlags.Ephemeral });
  // The stopped turn replaces its status line with "Stopped by …" itself.
  else await interaction.deferUpdate();
}

/**
 * "stop" as a message in a chat. A message cannot be answered ephemerally: a refusal goes to the person's DMs
 * (in a DM it is private already).
 */
export async function stopFromMessage(message: Message, place: Place, deps: StopDeps): Promise<void> {
  const result = await deps.core.turns.stop({ worldId: place.worldId, chatId: place.chatId, userId: message.author.id });
  const text = privateText(result);
  if (text) await tellPrivately(message, text, deps);
}

/** "stop" where nothing can be running (a channel: turns run in threads). */
export async function tellNothingRunning(message: Message, deps: StopDeps): Promise<void> {
  await tellPrivately(message, NOTHING_RUNNING_TEXT, deps);
}

async function tellPrivately(message: Message, text: string, deps: StopDeps): Promise<void> {
  try {
    const channelId = message.guildId === null ? message.channelId : await deps.api.openDm(message.author.id);
    await deps.api.post(channelId, { content: text });
  } catch (error) {
    deps.log.warn({ err: error, userId: message.author.id }, 'telling someone privately why nothing was stopped failed');
  }
}

export { isStopText, STOP_NOT_ALLOWED_TEXT };
