// How the core's durable queue answers a Discord chat, from its id alone, on whichever instance runs the turn.
import type { Logger } from '../../src/ops/log.ts';
import { chatId, type ContextMessage, type ContextRequest, type IncomingMessage, type MessageFile, parseWorldId, type PlatformPort, type TurnSink } from '../../src/platform/index.ts';
import { downloadAttachment } from './files.ts';
import { readDiscordContext } from './threadContext.ts';
import type { ChatActivity } from './chatActivity.ts';
import { type CommandReplies, turnKey } from './commandReplies.ts';
import type { DiscordApi } from './discordApi.ts';
import { connectMessage } from './mcpConnect.ts';
import { ChannelOutlet, type Outlet } from './outlets.ts';
import { channelOfChat } from './places.ts';
import type { TurnHints } from './turnHints.ts';
import { taskNote } from './taskCancel.ts';
import { createTurnSink, type DiscordTurnSink } from './turnSink.ts';

interface LiveTurn {
  sink: DiscordTurnSink;
  outlet: Outlet;
}

/**
 * The Discord platform port. A turn answers through the command reply this instance keeps for it (a `/ask` or
 * `/skill` in a bot thread or DM, received here), else with ordinary messages in the chat's channel: its thread
 * or DM channel, which the chat id names.
 */
export class DiscordTurns implements PlatformPort {
  readonly #live = new Set<LiveTurn>();

  constructor(
    private readonly api: DiscordApi,
    private readonly replies: CommandReplies,
    private readonly hints: TurnHints,
    private readonly activity: ChatActivity,
    private readonly log: Logger,
    private readonly files: { apiUrl?: string; maxBytes: number } = { maxBytes: 10 * 1024 * 1024 },
    /** The bot's user id, once logged in: its own earlier messages are marked in the context. */
    private readonly botId: () => string | undefined = () => undefined,
  ) {}

  /** What was said before the message, read from the channel on whichever instance runs the turn. */
  readContext(message: IncomingMessage, request: ContextRequest): Promise<ContextMessage[]> {
    return readDiscordContext(this.api, this.botId(), message, request);
  }

  /** Any instance can fetch a message's attachments again from their URLs. */
  fetchFile(file: MessageFile): Promise<Uint8Array> {
    return downloadAttachment(file, this.files);
  }

  /** A direct message: Discord shows ordinary messages to everyone, and an ephemeral one needs the person's own interaction. */
  async tellPrivately(_chatId: string, userId: string, text: string): Promise<void> {
    const dm = await this.api.openDm(userId);
    await this.api.post(dm, { content: text });
  }

  /** A routine's run or a webhook's home: a message in the channel and a thread on it (the chat). */
  async postRoot(worldId: string, text: string): Promise<string> {
    const world = parseWorldId(worldId);
    if (world.platform !== 'discord') throw new Error(`not a Discord world id: ${worldId}`);
    const messageId = await this.api.post(world.channelId, { content: text.slice(0, 2000) });
    const threadId = await this.api.startThread(world.channelId, messageId, text.slice(0, 100));
    return chatId(worldId, threadId);
  }

  async postNote(chat: string, text: string): Promise<void> {
    await this.api.post(channelOfChat(chat), { content: text.slice(0, 2000) });
  }

  /** An MCP call running as a task: its note in the thread with the Cancel button (taskCancel.ts). */
  async postTaskNote(chat: string, taskId: string, text: string): Promise<void> {
    await this.api.post(channelOfChat(chat), taskNote(text, taskId));
    this.activity.posted(chat);
  }

  /** The operator's budget alerts, in the admin's DM. */
  async directMessage(userId: string, text: string): Promise<void> {
    await this.tellPrivately('', userId, text);
  }

  /** A sign-in link is shown ephemerally, so the person is asked in the thread to click for it (mcpConnect.ts). */
  async askToConnect(chatId: string, userId: string, server: string): Promise<void> {
    await this.api.post(channelOfChat(chatId), connectMessage(server, userId));
    this.activity.posted(chatId);
  }

  /** Ordinary messages in a chat's channel; each post tells a command reply waiting in that chat. */
  channelOutlet(chatId: string, channelId: string): ChannelOutlet {
    return new ChannelOutlet(this.api, channelId, this.log, () => this.activity.posted(chatId), () => this.activity.watch(chatId));
  }

  sinkFor(message: IncomingMessage, turnId?: string): TurnSink {
    const channelId = channelOfChat(message.chatId);
    const log = this.log.child({ chatId: message.chatId });
    const reply = this.replies.take(message);
    if (!reply) this.hints.announce(message.chatId, turnKey(message));
    const outlet: Outlet = reply ?? this.channelOutlet(message.chatId, channelId);
    const sink = createTurnSink(outlet, this.api, log, turnId);
    const live: LiveTurn = { sink, outlet };
    this.#live.add(live);
    const answer = async (markdown: string) => {
      // Answering from here on: a stop must not overwrite what this posts.
      this.#live.delete(live);
      try {
        await sink.reply(markdown);
      } finally {
        outlet.close?.();
      }
    };
    return {
      progress: (text) => sink.progress(text),
      partial: (delta) => sink.partial?.(delta),
      retrying: (reason) => sink.retrying?.(reason),
      reply: answer,
      upload: async (file) => {
        await this.api.postFile(channelId, { content: `📎 ${file.title}` }, file);
        this.activity.posted(message.chatId);
      },
      // A mention that notifies nobody (the bot's messages never ping).
      stopped: (userId) => answer(/^\d+$/.test(userId) ? `Stopped by <@${userId}>.` : `Stopped by ${userId}.`),
    };
  }

  /**
   * This instance stops with turns unanswered (handed over to another instance, or to this one after a restart):
   * typing stops, their status lines go, and command replies say the answer comes later.
   */
  async interruptAll(): Promise<void> {
    const live = [...this.#live];
    this.#live.clear();
    await Promise.all(
      live.map(async ({ sink, outlet }) => {
        sink.close();
        await outlet.interrupted().catch((error: unknown) => this.log.debug({ err: error }, 'tidying an unanswered turn failed'));
        outlet.close?.();
      }),
    );
  }
}
