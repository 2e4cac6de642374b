// Hands a Slack message to the core's durable queue; any instance then answers it in its thread.
import { taskNoteBlocks } from './taskCancel.ts';
import { type AcceptResult, type AdapterState, type Core, isMcpCommand, type MessageFile, parseInstallCommand, parseWorldId, type PlatformPort } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { downloadSlackFile } from './files.ts';
import { readSlackContext, type SlackSelf } from './threadContext.ts';
import { slackChatId, slackThreadOf, slackWorldId } from './ids.ts';
import type { BackgroundTasks } from './tasks.ts';
import { StreamingSupport } from './answerStream.ts';
import { skillListText } from './skillList.ts';
import { runInstallCommand } from './installCommands.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';
import { safeText } from './slackText.ts';
import { SlackTurnSink } from './turnSink.ts';
import { mcpThreadCommand } from './mcpCommands.ts';
import type { ThreadMemory } from './threads.ts';

export interface SlackTurn {
  teamId: string;
  channelId: string;
  /** The thread the chat lives in (a new root's own ts for a new chat). */
  threadTs: string;
  userId: string;
  text: string;
  skill?: { id: string; args: string };
  files?: MessageFile[];
  /** The message's ts: the context is read from before it. */
  ref?: string;
}

export interface TurnDeps {
  core: Core;
  api: SlackApi;
  threads: ThreadMemory;
  tasks: BackgroundTasks;
  logger: Logger;
}

/**
 * Remembers the thread and hands the message to the core's accept step, which dedupes it by `deliveryKeys` and
 * queues it durably in one atomic step. `refused`: nothing was stored, so the delivery must be answered with
 * an error for Slack to deliver it again.
 */
export async function startTurn(deps: TurnDeps, turn: SlackTurn, deliveryKeys: string[]): Promise<AcceptResult> {
  const worldId = slackWorldId(turn.teamId, turn.channelId);
  const chatId = slackChatId(worldId, turn.threadTs);
  // Slack runs no slash command inside a thread: "@skillbot /skill ID args" and "@skillbot skills" stand in.
  const command = turn.skill ? undefined : threadCommand(turn.text);
  const install = turn.skill ? undefined : parseInstallCommand(turn.text.trim().replace(/^\/?skills\s+/i, ''));
  if (install !== undefined && /^\/?skills\s/i.test(turn.text.trim())) {
    // `@skillbot skills install` (a .skill file shared with it), `… installed`, `… update ID`, `… remove ID`.
    const accepted = await deps.core.turns.accept(undefined, deliveryKeys);
    if (accepted === 'queued') {
      deps.tasks.run('thread install command', async () => {
        const place = { teamId: turn.teamId, channelId: turn.channelId, userId: turn.userId, threadTs: turn.threadTs, ...(turn.files ? { files: turn.files } : {}) };
        const privately = await runInstallCommand(deps, place, install);
        if (privately !== undefined) await deps.api.postEphemeral({ channel: turn.channelId, user: turn.userId, threadTs: turn.threadTs, text: privately });
      });
    }
    return accepted;
  }
  if (!turn.skill && isMcpCommand(turn.text) && deps.core.mcp !== undefined) return mcpThreadCommand(deps, deps.core.mcp, turn, { worldId, chatId }, deliveryKeys);
  let skill = turn.skill;
  let note: string | undefined;
  if (command?.kind === 'skills') note = skillListText(deps.core.skills.forWorld(worldId));
  else if (command?.kind === 'skill') {
    if (deps.core.skills.served(command.id) || deps.core.skills.forWorld(worldId).some((candidate) => candidate.id === command.id)) skill = { id: command.id, args: command.args };
    else note = `No skill \`${safeText(command.id)}\` is available in this channel. \`@skillbot skills\` lists them.`;
  }
  if (note !== undefined) {
    // Answered here, without a turn; the delivery is still remembered so a retry posts nothing twice.
    const accepted = await deps.core.turns.accept(undefined, deliveryKeys);
    const text = note;
    if (accepted === 'queued') deps.tasks.run('thread command', () => deps.api.post({ channel: turn.channelId, threadTs: turn.threadTs, text }));
    return accepted;
  }
  try {
    await deps.threads.remember(chatId, turn.userId);
  } catch (error) {
    deps.logger.warn({ err: error, chatId }, 'remembering the thread failed');
    return 'refused';
  }
  const message = {
    worldId,
    chatId,
    userId: turn.userId,
    text: turn.text,
    ...(skill ? { skill } : {}),
    ...(turn.files?.length ? { files: turn.files } : {}),
    ...(turn.ref ? { ref: turn.ref } : {}),
  };
  return deps.core.turns.accept(message, deliveryKeys);
}

/** `/skill ID args` or `skills` written as a message (the mention already taken out). */
export function threadCommand(text: string): { kind: 'skill'; id: string; args: string } | { kind: 'skills' } | undefined {
  const trimmed = text.trim();
  if (/^\/?skills$/i.test(trimmed)) return { kind: 'skills' };
  const match = /^\/skill\s+(\S+)\s*([\s\S]*)$/.exec(trimmed);
  return match?.[1] ? { kind: 'skill', id: match[1], args: (match[2] ?? '').trim() } : undefined;
}

/** An assistant thread is titled once, after its first question. */
async function titleThread(api: SlackApi, store: AdapterState, target: { channel: string; threadTs: string }, text: string): Promise<void> {
  const key = `slack-title:${target.channel}:${target.threadTs}`;
  if ((await store.get<boolean>(key)) === true) return;
  const line = text.replace(/\s+/g, ' ').trim();
  await api.setTitle({ ...target, title: line.length > 60 ? `${line.slice(0, 59)}…` : line || 'skillbot' });
  await store.set(key, true, PLACEHOLDER_KEEP_MS * 30);
}

/** A turn's message is worth reusing for as long as its message may be re-run. */
const PLACEHOLDER_KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * How the core answers a Slack chat, from its id alone: one message in the thread, from "working" to the answer.
 * Its ts is kept per turn, so a re-run after a crash goes on in the same message instead of leaving a stale one.
 */
export function slackPort(
  api: SlackApi,
  store: AdapterState,
  logger: Logger,
  streaming = new StreamingSupport(),
  files?: { token: string; apiUrl?: string; maxBytes: number },
  self?: SlackSelf,
): PlatformPort {
  return {
    ...(self ? { readContext: (message, request) => readSlackContext(api, store, self, message, request) } : {}),
    // Any instance can fetch a message's files again: the URL and the bot token are all it needs.
    ...(files ? { fetchFile: (file: MessageFile) => downloadSlackFile(file, files) } : {}),
    // Only the person sees it, in the thread (an MCP sign-in link).
    async tellPrivately(chatId, userId, text) {
      const thread = slackThreadOf(chatId);
      if (!thread) throw new Error(`not a Slack chat id: ${chatId}`);
      await api.postEphemeral({ channel: thread.channelId, user: userId, text: safeText(text), threadTs: thread.threadTs });
    },
    // A routine's run or a webhook's home: a new root message in the channel, whose thread is the chat.
    async postRoot(worldId, text) {
      const world = parseWorldId(worldId);
      if (world.platform !== 'slack') throw new Error(`not a Slack world id: ${worldId}`);
      const ts = await api.post({ channel: world.channelId, text: safeText(text) });
      return slackChatId(worldId, ts);
    },
    async postNote(chatId, text) {
      const thread = slackThreadOf(chatId);
      if (!thread) throw new Error(`not a Slack chat id: ${chatId}`);
      await api.post({ channel: thread.channelId, threadTs: thread.threadTs, text: safeText(text) });
    },
    async postTaskNote(chatId, taskId, text) {
      const thread = slackThreadOf(chatId);
      if (!thread) throw new Error(`not a Slack chat id: ${chatId}`);
      await api.post({ channel: thread.channelId, threadTs: thread.threadTs, text: safeText(text), blocks: taskNoteBlocks(safeText(text), taskId) });
    },
    // The app's DM with the person (a user id as the channel): the operator's budget alerts.
    async directMessage(userId, text) {
      await api.post({ channel: userId, text: safeText(text) });
    },
    sinkFor(message, turnId) {
      const thread = slackThreadOf(message.chatId);
      if (!thread) throw new Error(`not a Slack chat id: ${message.chatId}`);
      const log = logger.child({ chatId: message.chatId, turnId });
      // The bot's DMs are Slack's assistant threads (the split view): they have a status line and a title.
      const assistantThread = thread.channelId.startsWith('D');
      const target = { channel: thread.channelId, threadTs: thread.threadTs, teamId: thread.teamId, userId: message.userId, turnId };
      const key = `slack-placeholder:${turnId}`;
      const memory = { get: () => store.get<string>(key), set: (ts: string) => store.set(key, ts, PLACEHOLDER_KEEP_MS) };
      const sink = new SlackTurnSink(api, target, log, { streaming, status: assistantThread }, memory);
      if (assistantThread) void titleThread(api, store, target, message.text).catch((error: unknown) => log.info({ err: slackErrorCode(error) }, 'setting the thread title failed'));
      sink.open();
      return sink;
    },
  };
}
