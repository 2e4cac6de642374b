// Slash commands, autocomplete, buttons (approval, Stop, MCP Connect, servers' questions, task Cancel) and modals: each acknowledged within Discord's 3 seconds.
import { type AutocompleteInteraction, type ChatInputCommandInteraction, type Interaction, MessageFlags } from 'discord.js';
import type { Core, IncomingMessage } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { answerApprovalClick } from './approvalClicks.ts';
import type { DiscordApprovalPresenter } from './approvalPresenter.ts';
import type { ChatActivity } from './chatActivity.ts';
import type { CommandReplies } from './commandReplies.ts';
import { skillChoices, skillListPages } from './commands.ts';
import { claimInteraction } from './dedupe.ts';
import { type DiscordApi, discordErrorCode } from './discordApi.ts';
import { NO_THREAD_TEXT, threadName } from './threadNames.ts';
import { InteractionOutlet } from './outlets.ts';
import { channelFactsOf, locate, type Place, threadPlace, type ThreadDirectory, worldOf } from './places.ts';
import { answerStopClick, STOP_PREFIX } from './stop.ts';
import type { DiscordTurns } from './turns.ts';
import { installWords, runInstallInteraction } from './installCommands.ts';
import { answerConnectClick, CONNECT_PREFIX } from './mcpConnect.ts';
import { answerPick, PICK_PREFIX } from './installPicks.ts';
import { ELICIT_PREFIX } from './mcpQuestionCard.ts';
import { answerQuestionClick, answerQuestionForm } from './mcpQuestions.ts';
import { answerTaskCancelClick, TASK_PREFIX } from './taskCancel.ts';
import { runRoutineInteraction } from './routineCommands.ts';
import { admitInteraction } from './access.ts';

export interface InteractionDeps {
  /** The bot: skills, access checks, approvals, installs, routines, MCP accounts, the adapter's own state. */
  core: Core;
  presenter: DiscordApprovalPresenter;
  activity: ChatActivity;
  api: DiscordApi;
  threads: ThreadDirectory;
  turns: DiscordTurns;
  replies: CommandReplies;
  /** Queues the turn durably (`core.turns.accept`); resolves once it is in the store, rejects if it is not. */
  submit: (message: IncomingMessage) => Promise<void>;
  log: Logger;
}

const whereOf = (interaction: Interaction, deps: InteractionDeps) =>
  locate(channelFactsOf(interaction.channel, interaction.channelId ?? '', interaction.guildId), deps.threads);

/** Quotes a user's words under the command, clipped: the message the thread hangs on. */
function quote(text: string): string {
  const clipped = text.length > 300 ? `${text.slice(0, 299)}…` : text;
  return clipped.split('\n').map((line) => `> ${line}`).join('\n');
}

/** `/skills`, privately, as Components V2 containers (one per page of skills). */
async function listSkills(interaction: ChatInputCommandInteraction, deps: InteractionDeps): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const worldId = worldOf(await whereOf(interaction, deps));
  if (worldId === undefined) {
    await interaction.editReply({ content: 'I cannot tell which channel this is.' });
    return;
  }
  const [first = [], ...rest] = skillListPages(deps.core.skills.forWorld(worldId));
  await interaction.editReply({ flags: MessageFlags.IsComponentsV2, components: first as never });
  for (const page of rest) await interaction.followUp({ flags: MessageFlags.Ephemeral | MessageFlags.IsComponentsV2, components: page as never });
}

/** Names a skill that does not exist: answered privately at once, before any model call. */
async function refuseUnknownSkill(interaction: ChatInputCommandInteraction, id: string, deps: InteractionDeps): Promise<void> {
  const closest = deps.core.skills.closest(id, 3);
  const hint = closest.length > 0 ? ` Did you mean ${closest.map((candidate) => `\`${candidate}\``).join(', ')}?` : '';
  await interaction.reply({ content: `There is no skill \`${id}\`.${hint} \`/skills\` lists them.`, flags: MessageFlags.Ephemeral });
}

/**
 * `/ask` and `/skill`. Deferred first (the 3-second rule). In a text channel the reply quotes the request and a
 * public thread opens on it, where the turn answers; in a bot thread or a DM the reply itself is to carry the
 * answer: it waits in `replies` for its turn, which may run here (and take it) or on another instance (which
 * answers in the channel, and the reply says so).
 */
async function startTurn(interaction: ChatInputCommandInteraction, deps: InteractionDeps): Promise<void> {
  const skillId = interaction.commandName === 'skill' ? interaction.options.getString('id', true).trim() : undefined;
  // A `user-invocable: false` skill is the model's alone: to a person's command it does not exist.
  if (skillId !== undefined && !deps.core.skills.invocable(skillId) && !deps.core.skills.served(skillId)) return refuseUnknownSkill(interaction, skillId, deps);
  const args = interaction.options.getString(skillId === undefined ? 'prompt' : 'args') ?? '';
  const text = skillId === undefined ? args : `/skill ${skillId} ${args}`.trim();
  // The person's limits hold for a command's turn as for a message's (the rules were checked before it ran).
  const worldOfCommand = worldOf(await whereOf(interaction, deps));
  const limited = worldOfCommand === undefined ? undefined : await deps.core.access.admitTurn(worldOfCommand, interaction.user.id, `discord:interaction:${interaction.id}`);
  if (limited?.kind === 'limited') {
    await interaction.reply({ content: limited.note, flags: MessageFlags.Ephemeral });
    return;
  }
  const response = await interaction.deferReply({ withResponse: true });
  const originalId = response.resource?.message?.id;
  const location = await whereOf(interaction, deps);
  const worldId = worldOf(location);
  if (worldId === undefined || location.kind === 'unknown') {
    await interaction.editReply({ content: 'I cannot work in this kind of channel.' });
    return;
  }
  if (skillId !== undefined && !deps.core.skills.served(skillId) && !deps.core.skills.forWorld(worldId).some((skill) => skill.id === skillId)) {
    await interaction.editReply({ content: `The skill \`${skillId}\` is not enabled in this channel.` });
    return;
  }
  const turn = (place: Place): IncomingMessage => ({
    worldId: place.worldId,
    chatId: place.chatId,
    userId: interaction.user.id,
    text,
    ...(skillId === undefined ? {} : { skill: { id: skillId, args } }),
  });
  if (location.kind === 'channel') {
    await interaction.editReply({ content: skillId === undefined ? quote(args) : `\`/skill ${skillId}\`${args ? `\n${quote(args)}` : ''}` });
    if (originalId === undefined) throw new Error('Discord did not say which message answers the command');
    let threadId: string;
    try {
      threadId = await deps.api.startThread(location.channelId, originalId, threadName(args, skillId ?? `Question from ${interaction.user.username}`));
    } catch (error) {
      deps.log.warn({ err: error, code: discordErrorCode(error), channelId: location.channelId }, 'opening a thread failed');
      await interaction.followUp({ content: NO_THREAD_TEXT, flags: MessageFlags.Ephemeral });
      return;
    }
    const place = threadPlace(location.guildId, location.channelId, threadId);
    await deps.threads.remember(place, interaction.user.id);
    await deps.submit(turn(place));
    return;
  }
  const place = location.place;
  if (location.kind === 'otherThread') await deps.threads.remember(place, interaction.user.id);
  const channel = deps.turns.channelOutlet(place.chatId, place.channelId);
  const message = turn(place);
  const outlet = new InteractionOutlet(interaction, originalId, channel, deps.activity.watch(place.chatId), deps.api, deps.log);
  const forget = deps.replies.add(message, outlet);
  try {
    await deps.submit(message);
  } catch (error) {
    forget();
    throw error;
  }
}

async function autocomplete(interaction: AutocompleteInteraction, deps: InteractionDeps): Promise<void> {
  const focused = interaction.options.getFocused(true);
  const worldId = worldOf(await whereOf(interaction, deps));
  if (interaction.commandName !== 'skill' || focused.name !== 'id' || worldId === undefined) {
    await interaction.respond([]);
    return;
  }
  await interaction.respond(skillChoices(deps.core.skills.forWorld(worldId), String(focused.value)));
}

/** Every interaction: slash commands, autocomplete, approval buttons. Each is handled by one instance. */
export async function onInteraction(interaction: Interaction, deps: InteractionDeps): Promise<void> {
  // Every instance connected to the gateway receives it; one answers.
  if (!(await claimInteraction(deps.core.state, interaction.id))) return;
  const location = await whereOf(interaction, deps);
  if (!(await admitInteraction(interaction, deps.core.access, worldOf(location), location.kind === 'dm'))) return;
  if (interaction.isButton()) {
    if (interaction.customId.startsWith('hitl:')) await answerApprovalClick(interaction, deps);
    else if (interaction.customId.startsWith(STOP_PREFIX)) await answerStopClick(interaction, deps);
    else if (interaction.customId.startsWith(CONNECT_PREFIX)) await answerConnectClick(interaction, deps);
    else if (interaction.customId.startsWith(ELICIT_PREFIX)) await answerQuestionClick(interaction, deps);
    else if (interaction.customId.startsWith(TASK_PREFIX)) await answerTaskCancelClick(interaction, deps);
    return;
  }
  if (interaction.isModalSubmit()) {
    if (interaction.customId.startsWith(ELICIT_PREFIX)) await answerQuestionForm(interaction, deps);
    return;
  }
  if (interaction.isStringSelectMenu()) {
    if (interaction.customId.startsWith(PICK_PREFIX)) await answerPick(interaction, deps);
    return;
  }
  if (interaction.isAutocomplete()) return autocomplete(interaction, deps);
  if (!interaction.isChatInputCommand()) return;
  if (interaction.commandName === 'skills') {
    const words = installWords(interaction);
    if (words !== undefined) return runInstallInteraction(interaction, words, await whereOf(interaction, deps), deps);
    return listSkills(interaction, deps);
  }
  if ((interaction.commandName === 'routine' || interaction.commandName === 'hook') ) {
    const where = await whereOf(interaction, deps);
    return runRoutineInteraction(interaction, deps.core.routines, where.kind === 'dm' ? undefined : worldOf(where));
  }
  if (interaction.commandName === 'ask' || interaction.commandName === 'skill') return startTurn(interaction, deps);
  if (interaction.commandName === 'usage') {
    const worldId = worldOf(location);
    const content = worldId === undefined ? 'I cannot tell which channel this is.' : await deps.core.access.usage(worldId, interaction.user.id);
    await interaction.reply({ content, flags: MessageFlags.Ephemeral });
  }
}
