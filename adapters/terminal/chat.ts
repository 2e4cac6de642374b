// The terminal chat: a REPL on a terminal, one message per line when piped, approvals as a numbered choice.
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { createInterface, type Interface } from 'node:readline';
import { type ApprovalRecord, type Core, type CoreMcp, type IncomingMessage, isMcpCommand, type OutgoingFile, type TurnSink } from '../../src/platform/index.ts';
import { parseSkillCommand, terminalSkillList } from './skillCommands.ts';
import { TerminalFiles } from './files.ts';
import { installFromTerminal, parseInstallCommand } from './installCommand.ts';
import { choiceHint, parseChoice, TerminalPresenter } from './presenter.ts';
import { TerminalQuestionPresenter } from './mcpQuestions.ts';
import { terminalSafe } from '../../src/text/visible.ts';

export interface TerminalOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  worldId?: string;
  chatId?: string;
  /** Where logs go instead of this terminal (said once at the start). */
  logFile?: string;
}

const WORLD = 'terminal:local';
/** `/attach PATH`: the file goes with the next message. */
const ATTACH = /^\/attach(?:\s+|$)/;

/** The chat id a session uses: `--chat abc` resumes `terminal:local/abc`; a full chat id is accepted too. */
export function terminalChatId(worldId: string, chat: string | undefined): string {
  if (!chat) return `${worldId}/${randomUUID().slice(0, 8)}`;
  return chat.includes('/') ? chat : `${worldId}/${chat}`;
}

/** One terminal session: what its line loops share (the chat changes on `/new`). */
interface Session {
  core: Core;
  worldId: string;
  chatId: string;
  user: string;
  write: (text: string) => void;
  files: TerminalFiles;
  presenter: TerminalPresenter;
  /** A server's question being answered at the prompt (absent without MCP servers). */
  serverQuestions?: TerminalQuestionPresenter;
  /** Resolves once the line's turn is over (its answer printed by the sink); never rejects. */
  turn: (text: string) => Promise<void>;
}

/**
 * The terminal chat. Interactive: a prompt, answers streamed, approvals as a numbered choice. Pipe mode (stdin
 * not a TTY): one message per line, one answer per message, every approval answered `no` and said so.
 */
export async function runTerminalChat(core: Core, options: TerminalOptions): Promise<number> {
  const worldId = options.worldId ?? WORLD;
  const interactive = options.input.isTTY === true;
  // Everything printed passes through terminalSafe: the model's (or a script's) ESC, CSI, OSC and C1 controls
  // show as <U+001B>…, so no text can recolour, retitle, move the cursor or hide a line of the screen.
  const write = (text: string) => void options.output.write(terminalSafe(text));
  const { files: limits, outputsDir } = core.settings;
  const files = new TerminalFiles({ maxBytes: limits.maxBytes, maxPerMessage: limits.maxPerMessage, outputsDir });
  const session: Session = { core, worldId, chatId: terminalChatId(worldId, options.chatId), user: userInfo().username || 'local', write, files, presenter: new TerminalPresenter(write), turn: async () => {} };
  if (core.mcp !== undefined) session.serverQuestions = new TerminalQuestionPresenter(core.mcp.questions, session.user, write, !interactive);
  session.turn = async (text) => {
    const skill = parseSkillCommand(text);
    const attached = files.take();
    const message: IncomingMessage = { worldId, chatId: session.chatId, userId: session.user, text, ...(skill ? { skill } : {}), ...(attached.length > 0 ? { files: attached } : {}) };
    await core.turns.submit(message).catch((error: unknown) => write(`Your message was not answered: ${(error as Error).message}\n`));
  };
  const detach = attach(session, interactive);
  const rl = createInterface({ input: options.input, output: interactive ? options.output : undefined, terminal: interactive, crlfDelay: Infinity });
  try {
    if (!interactive) return await pipedLines(rl, session);
    write(`skillbot chat: ${session.chatId} (resume with --chat ${session.chatId.slice(worldId.length + 1)}). /skills, /skill ID [args], /attach PATH, /install PATH.skill, /mcp attach|prompt …, /usage, /new, /quit; Ctrl-C stops a turn\n`);
    if (options.logFile) write(`Logs go to ${options.logFile}; warnings also show here.\n`);
    return await promptedLines(rl, session);
  } finally {
    rl.close();
    detach();
  }
}

/** The session's presenter and port in the core; returns what takes them away again. */
function attach(session: Session, interactive: boolean): () => void {
  const { core, write, files } = session;
  /** A delivered file lands on this computer; the person is told where (the model is told it was delivered). */
  const saveOutput = (forChat: string) => async (file: OutgoingFile) => {
    const saved = await files.save(forChat, file);
    write(`  … file saved: ${saved} (${file.title})\n`);
  };
  const removePresenter = interactive ? core.approvals.addPresenter('terminal', session.presenter) : () => {};
  const removeQuestions = session.serverQuestions === undefined ? () => {} : (core.mcp?.questions.addPresenter('terminal', session.serverQuestions) ?? (() => {}));
  const onResolved = (record: ApprovalRecord) => {
    if (!interactive && record.chatId === session.chatId) {
      write(`[approval] ${record.title}: answered ${record.outcome} automatically (unattended run, nobody to ask).\n`);
    }
  };
  core.approvals.on('hitl-option-resolved', onResolved);
  // Lines go through the durable queue like any platform's messages; the dispatcher asks this port for the sink,
  // by chat id. This process answers only its own session: another terminal on the same store answers its own.
  const removePort = core.turns.addPort('terminal', {
    answers: (id) => id === session.chatId,
    // The terminal is one person's: a private note is a printed line.
    tellPrivately: async (_chat, _user, text) => write(`\n🔑 ${text}\n`),
    sinkFor: (message) => ({ ...(interactive ? streamingSink(write) : pipeSink(write)), upload: saveOutput(message.chatId) }),
    fetchFile: (file) => files.fetch(file),
  });
  return () => {
    removePort();
    removePresenter();
    removeQuestions();
    core.approvals.off('hitl-option-resolved', onResolved);
  };
}

/** Pipe mode: one message per line, each answered before the next is read. */
async function pipedLines(rl: Interface, session: Session): Promise<number> {
  const { core, worldId, write, files } = session;
  for await (const line of rl) {
    if (line.trim() === '') continue;
    if (line.trim() === '/skills') {
      write(terminalSkillList(core.skills.forWorld(worldId)));
      continue;
    }
    if (ATTACH.test(line.trim())) {
      write(`${await files.attach(line.trim().replace(ATTACH, ''))}\n`);
      continue;
    }
    const install = parseInstallCommand(line);
    if (install !== undefined) {
      write(`${await installFromTerminal(core, { worldId, chatId: session.chatId, userId: session.user, source: install, interactive: false })}\n`);
      continue;
    }
    await (isMcpCommand(line) && core.mcp !== undefined ? mcpFromTerminal(session, core.mcp, line) : session.turn(line));
  }
  return 0;
}

/** A person at the prompt: a line typed during a turn is queued; Ctrl-C stops the turn; a question's choice answers it. */
async function promptedLines(rl: Interface, session: Session): Promise<number> {
  const { core, worldId, write, files, presenter, user } = session;
  const running = new Set<Promise<unknown>>();
  // Ctrl-C during a turn stops the turn (its model stream, its script, its question); between turns it quits.
  rl.on('SIGINT', () => {
    if (running.size === 0) {
      rl.close();
      return;
    }
    write('\n  … stopping\n');
    void core.turns
      .stop({ worldId, chatId: session.chatId, userId: user })
      .then((result) => {
        if (result.kind !== 'stopping') write('  … nothing to stop\n');
      })
      .catch((error: unknown) => write(`  … could not stop: ${(error as Error).message}\n`));
  });
  const queue = queueFor(rl, session, running);
  rl.setPrompt('you> ');
  rl.prompt();
  for await (const line of rl) {
    const text = line.trim();
    // A server's question takes every line while open (a value may start with "/"): its call is what the turn waits on.
    if (session.serverQuestions?.pending !== undefined) {
      await session.serverQuestions.onLine(line);
      // A task's question can come between turns: the prompt comes back once it is answered.
      if (running.size === 0 && session.serverQuestions.pending === undefined) rl.prompt();
      continue;
    }
    const question = presenter.pending;
    const option = question === undefined ? undefined : parseChoice(text, question.options);
    if (question !== undefined && option !== undefined) {
      await core.approvals.respond({ worldId, approvalId: question.id, option, userId: user });
    } else if (question !== undefined && (text === '' || /^\d+$/.test(text))) {
      write(`${choiceHint(question)}\n`);
    } else if (question !== undefined && !text.startsWith('/')) {
      // Words, not an answer: a message for after this turn, as any line typed during a turn is.
      write(`(Queued: answered after this turn. The question above is still open: ${choiceHint(question)})\n`);
      queue(text);
      continue;
    } else if (text === '/quit' || text === '/exit') {
      break;
    } else if (text === '/skills') {
      write(terminalSkillList(core.skills.forWorld(worldId)));
    } else if (ATTACH.test(text)) {
      write(`${await files.attach(text.replace(ATTACH, ''))}\n`);
    } else if (text === '/new') {
      if (running.size > 0) write('A turn is still running: wait for it (or press Ctrl-C), then /new.\n');
      else {
        session.chatId = terminalChatId(worldId, undefined);
        write(`A fresh conversation: ${session.chatId} (resume with --chat ${session.chatId.slice(worldId.length + 1)}).\n`);
      }
    } else if (text === '/usage') {
      // This conversation's totals, then the person's own figures against the world's limits (as Slack's /usage).
      write(`${await core.turns.usageText(session.chatId, worldId, user)}\n`);
    } else if (text !== '') {
      queue(text);
      continue;
    }
    if (running.size === 0) rl.prompt();
  }
  await Promise.allSettled(running);
  return 0;
}

/**
 * Not awaited: a message typed during a turn is queued and answered after it. The prompt comes back once no turn
 * is running, so answers are not printed after a dangling "you>".
 */
function queueFor(rl: Interface, session: Session, running: Set<Promise<unknown>>): (text: string) => void {
  const { core, worldId, write, user } = session;
  return (text) => {
    const install = parseInstallCommand(text);
    // An install's review is a question like a turn's: answered at the prompt while it waits.
    const work =
      isMcpCommand(text) && core.mcp !== undefined
        ? mcpFromTerminal(session, core.mcp, text)
        : install === undefined
        ? session.turn(text)
        : installFromTerminal(core, { worldId, chatId: session.chatId, userId: user, source: install, interactive: true })
            .then((said) => write(`${said}\n`))
            .catch((error: unknown) => write(`Not installed: ${(error as Error).message}\n`));
    const pending = work.finally(() => {
      running.delete(pending);
      if (running.size === 0) rl.prompt();
    });
    running.add(pending);
  };
}

/**
 * Interactive: stream each text as it comes (what the model says before a tool call, then the progress line, then
 * the answer), printing the answer once: the final text only when it was not streamed whole.
 */
function streamingSink(write: (text: string) => void): TurnSink {
  let streamed = '';
  return {
    progress(text) {
      if (streamed) write('\n');
      streamed = '';
      write(`  … ${text}\n`);
    },
    partial(delta) {
      if (!streamed) write('bot> ');
      streamed += delta;
      write(delta);
    },
    retrying(reason) {
      if (streamed) write('\n');
      streamed = '';
      write(`  … the model call failed (${reason}); retrying\n`);
    },
    async reply(markdown) {
      // The answer was printed as it came: only what the turn added under it (a notice) is printed now.
      const shown = streamed.trim();
      if (shown && markdown.startsWith(shown)) write(`${markdown.slice(shown.length)}\n`);
      else write(`${streamed ? '\n' : ''}bot> ${markdown}\n`);
      streamed = '';
    },
  };
}

/** Pipe mode: exactly one answer per message, nothing else but approval notices. */
function pipeSink(write: (text: string) => void): TurnSink {
  return {
    progress() {},
    async reply(markdown) {
      write(`${markdown}\n`);
    },
  };
}

/** `/mcp attach|prompt …`: the file saved beside the chat's other outputs, the prompt run as this chat's turn. */
function mcpFromTerminal(session: Session, mcp: CoreMcp, text: string): Promise<void> {
  const { write } = session;
  const place = {
    worldId: session.worldId,
    userId: session.user,
    reply: async (line: string) => write(`${line}\n`),
    upload: async (file: OutgoingFile) => write(`  … file saved: ${await session.files.save(session.chatId, file)} (${file.title})\n`),
    startTurn: (words: string) => session.turn(words),
  };
  return mcp.command(place, text).catch((error: unknown) => write(`Not done: ${(error as Error).message}\n`));
}
