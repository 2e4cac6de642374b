// Starts Discord: the client, the commands, the presenter and the port the durable queue answers chats through.
import { setTimeout as delay } from 'node:timers/promises';
import { type Client, Events, type Interaction, MessageFlags } from 'discord.js';
import type { Core, IncomingMessage, MessageFile, RunningPlatform } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { DiscordApprovalPresenter } from './approvalPresenter.ts';
import { ChatActivity } from './chatActivity.ts';
import { createDiscordClient } from './client.ts';
import { CommandReplies } from './commandReplies.ts';
import { SLASH_COMMANDS } from './commands.ts';
import { DiscordApi } from './discordApi.ts';
import { EventWork } from './tasks.ts';
import { type InteractionDeps, onInteraction } from './interactions.ts';
import { onMessage } from './messages.ts';
import { discordMembership } from './access.ts';
import { type Place, ThreadDirectory } from './places.ts';
import { installSharedFile } from './installCommands.ts';
import { discordMcpCommand } from './mcpCommands.ts';
import { DiscordQuestionPresenter } from './mcpQuestions.ts';
import { TurnHints } from './turnHints.ts';
import { DiscordTurns } from './turns.ts';

export interface DiscordOptions {
  /** On stop, how long events being handled (a message being queued, a click) may take (default 10 s). */
  shutdownGraceMs?: number;
  /** How long to wait for the gateway's READY and the guilds (default 60 s). */
  readyTimeoutMs?: number;
}

/** A start failure a person can fix, said in one line with the fix. */
export class DiscordStartError extends Error {
  override readonly name = 'DiscordStartError';
}

function explain(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/disallowed intents/i.test(message)) {
    return new DiscordStartError('Discord refused the Message Content intent: enable "Message Content Intent" under Bot → Privileged Gateway Intents in the Developer Portal (README, section Discord).');
  }
  if (/invalid token|401|unauthorized|authentication failed/i.test(message)) {
    return new DiscordStartError('Discord refused DISCORD_TOKEN: copy the bot token again (Developer Portal → Bot → Reset Token).');
  }
  return error instanceof Error ? error : new Error(message);
}

async function waitReady(client: Client, timeoutMs: number): Promise<void> {
  if (client.isReady()) return;
  const stop = new AbortController();
  try {
    await Promise.race([
      new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve())),
      delay(timeoutMs, undefined, { signal: stop.signal }).then(() => {
        throw new DiscordStartError(`Discord did not get ready within ${timeoutMs / 1000} s (check DISCORD_API_URL and the network).`);
      }),
    ]);
  } finally {
    stop.abort();
  }
}

function logConnection(client: Client, log: Logger): void {
  client.on(Events.Error, (error) => log.error({ err: error }, 'discord client error'));
  client.on(Events.Warn, (message) => log.warn({ message }, 'discord warning'));
  client.on(Events.ShardDisconnect, (event, shardId) => log.warn({ code: event.code, shardId }, 'gateway disconnected for good'));
  client.on(Events.ShardReconnecting, (shardId) => log.warn({ shardId }, 'gateway connection lost: reconnecting'));
  client.on(Events.ShardResume, (shardId, replayed) => log.info({ shardId, replayed }, 'gateway session resumed'));
}

async function reportFailure(interaction: Interaction, log: Logger): Promise<void> {
  if (!interaction.isRepliable()) return;
  const content = 'Something went wrong on my side; it is logged. Please try again.';
  try {
    if (interaction.deferred || interaction.replied) await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
    else await interaction.reply({ content, flags: MessageFlags.Ephemeral });
  } catch (error) {
    log.debug({ err: error }, 'telling the user about a failure failed too');
  }
}

/** The gateway's events, each to its handler, tracked so stop() can let them end. */
function listen(client: Client, parts: Omit<InteractionDeps, 'submit'>, work: EventWork): void {
  const { core, api, threads, log } = parts;
  // An interaction is claimed by its id (claimInteraction) before this: it needs no delivery keys of its own.
  const submit = async (message: IncomingMessage) => {
    if ((await core.turns.accept(message, [])) === 'refused') throw new Error('the turn could not be queued: the store did not answer');
  };
  const interactionDeps = { ...parts, submit };
  core.access.register('discord', discordMembership(api));
  const messageDeps = {
    access: core.access,
    botId: () => client.user?.id,
    api,
    threads,
    accept: core.turns.accept,
    log,
    stop: { core, threads, api, log },
    newConversation: (chatId: string) => core.turns.newConversation(chatId),
    installFile: (place: Place, userId: string, file: MessageFile) =>
      installSharedFile(place, userId, file, { core, api, log, ...(core.settings.discord.apiUrl ? { apiUrl: core.settings.discord.apiUrl } : {}) }),
    ...(core.mcp === undefined ? {} : { mcpCommand: discordMcpCommand(core.mcp, { api, accept: core.turns.accept }) }),
  };

  logConnection(client, log);
  // Fires only with the GuildMembers intent (docs/discord.md): a member's roles changed, so they are read again.
  client.on(Events.GuildMemberUpdate, (_old, member) => core.access.forgetUser(member.id));
  client.on(Events.MessageCreate, (message) => {
    work.run(onMessage(message, messageDeps).catch((error: unknown) => log.error({ err: error, messageId: message.id }, 'handling a message failed')));
  });
  client.on(Events.InteractionCreate, (interaction) => {
    work.run(
      onInteraction(interaction, interactionDeps).catch(async (error: unknown) => {
        log.error({ err: error, interactionId: interaction.id }, 'handling an interaction failed');
        await reportFailure(interaction, log);
      }),
    );
  });
}

/** Connects to Discord, registers the slash commands and answers messages, commands and approval clicks. */
export async function startDiscord(core: Core, options: DiscordOptions = {}): Promise<RunningPlatform> {
  const { token, guildId, apiUrl } = core.settings.discord;
  if (!token) throw new DiscordStartError('DISCORD_TOKEN is not set.');
  const log = core.logger.child({ platform: 'discord' });
  const client = createDiscordClient(apiUrl);
  const api = new DiscordApi(client.rest);
  const threads = new ThreadDirectory(core.state);
  const activity = new ChatActivity();
  const replies = new CommandReplies(log);
  const hints = new TurnHints(core.state, log);
  const turns = new DiscordTurns(api, replies, hints, activity, log, { maxBytes: core.settings.files.maxBytes, ...(apiUrl ? { apiUrl } : {}) }, () => client.user?.id);
  const presenter = new DiscordApprovalPresenter(api, activity, log);
  const work = new EventWork();
  listen(client, { core, presenter, activity, api, threads, turns, replies, log }, work);

  // REST works before the gateway: adding the presenter updates questions a previous process left open.
  client.rest.setToken(token);
  const removePresenter = core.approvals.addPresenter('discord', presenter);
  const questionPresenter = new DiscordQuestionPresenter(api, activity, core.mcp?.questions);
  const removeQuestions = core.mcp?.questions.addPresenter('discord', questionPresenter) ?? (() => {});
  let removePort = () => {};
  let commandsRegistered = false;
  try {
    await hints.listen((chatId, key) => replies.ranElsewhere(chatId, key));
    // Turns queued before a restart may be answered as soon as the dispatcher runs: the port is there first.
    removePort = core.turns.addPort('discord', turns);
    await client.login(token);
    await waitReady(client, options.readyTimeoutMs ?? 60_000);
    const applicationId = client.application?.id ?? client.user?.id;
    if (!applicationId) throw new DiscordStartError('Discord did not tell the application id.');
    await api.registerCommands(applicationId, guildId, SLASH_COMMANDS);
    commandsRegistered = true;
    log.info({ user: client.user?.tag, commands: guildId ? `guild ${guildId}` : 'global' }, 'discord ready');
  } catch (error) {
    removePort();
    await hints.close();
    removePresenter();
    removeQuestions();
    await client.destroy();
    throw explain(error);
  }

  let stopped = false;
  return {
    ready: () => commandsRegistered && !stopped && client.isReady(),
    async stop() {
      if (stopped) return;
      stopped = true;
      // No new work, and no "reconnecting" noise while the connection closes on purpose.
      client.removeAllListeners();
      client.on(Events.Error, (error) => log.debug({ err: error }, 'discord client error while stopping'));
      await work.drain(options.shutdownGraceMs ?? 10_000);
      // `skillbot start` stopped the dispatcher first: turns not answered by now are answered later or elsewhere.
      removePort();
      await hints.close();
      await Promise.all([turns.interruptAll(), replies.interruptAll()]);
      // Alone, the app is about to expire the open questions, when REST is gone: say so in them now. On a shared
      // store they stay open for the instance that re-runs their turns and resumes them.
      if (!core.sharedStore) await presenter.lapseOpen();
      // A turn's MCP questions end with it on either store (never resumed); a task's stay live.
      await questionPresenter.lapseOpen();
      removePresenter();
      removeQuestions();
      await client.destroy();
    },
  };
}
