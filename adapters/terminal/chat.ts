// The terminal chat: a REPL on a terminal, one message per line when piped, approvals as a numbered choice.
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { type ApprovalRecord, type Core, type IncomingMessage, type OutgoingFile, type TurnSink } from '../../src/platform/index.ts';
import { parseSkillCommand, terminalSkillList } from './skillCommands.ts';
import { TerminalFiles } from './files.ts';
import { installFromTerminal, parseInstallCommand } from './installCommand.ts';
import { choiceHint, parseChoice, TerminalPresenter } from './presenter.ts';
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

/**
 * The terminal chat. Interactive: a prompt, answers streamed, approvals as a numbered choice. Pipe mode (stdin
 * not a TTY): one message per line, one answer per message, every approval answered `no` and said so.
 */
export async function runTerminalChat(core: Core, options: TerminalOptions): Promise<number> {
  const worldId = options.worldId ?? WORLD;
  let chatId = terminalChatId(worldId, options.chatId);
  const interactive = options.input.isTTY === true;
  // Everything printed passes through terminalSafe: the model's (or a script's) ESC, CSI, OSC and C1 controls
  // show as <U+001B>…, so no text can recolour, retitle, move the cursor or hide a line of the screen.
  const write = (text: string) => void options.output.write(terminalSafe(text));
  const user = userInfo().username || 'local';
  const presenter = new TerminalPresenter(write);
  const { files: limits, outputsDir } = core.settings;
  const files = new TerminalFiles({ maxBytes: limits.maxBytes, maxPerMessage: limits.maxPerMessage, outputsDir });
  /** A delivered file lands on this computer; the person is told where (the model is told it was delivered). */
  const saveOutput = (forChat: string) => async (file: OutgoingFile) => {
    const saved = await files.save(forChat, file);
    write(`  … file saved: ${saved} (${file.title})\n`);
  };
  const removePresenter = interactive ? core.approvals.addPresenter('terminal', presenter) : () => {};
  const onResolved = (record: ApprovalRecord) => {
    if (!interactive && record.chatId === chatId) {
      write(`[approval] ${record.title}: answered ${record.outcome} automatically (unattended run, nobody to ask).\n`);
    }
  };
  core.approvals.on('hitl-option-resolved', onResolved);
  // Lines go through the durable queue like any platform's messages; the dispatcher asks this port for the sink,
  // by chat id. This process answers only its own session: another terminal on the same store answers its own.
  const removePort = core.turns.addPort('terminal', {
    answers: (id) => id === chatId,
    // The terminal is one person's: a private note is a printed line.
    tellPrivately: async (_chat, _user, text) => write(`\n🔑 ${text}\n`),
    sinkFor: (message) => ({ ...(interactive ? streamingSink(write) : pipeSink(write)), upload: saveOutput(message.chatId) }),
    fetchFile: (file) => files.fetch(file),
  });

  /** Resolves once the line's turn is over (its answer printed by the sink); never rejects. */
  const turn = async (text: string): Promise<void> => {
    const skill = parseSkillCommand(text);
    const attached = files.take();
    const message: IncomingMessage = { worldId, chatId, userId: user, text, ...(skill ? { skill } : {}), ...(attached.length > 0 ? { files: attached } : {}) };
    await core.turns.submit(message).catch((error: unknown) => write(`Your message was not answered: ${(error as Error).message}\n`));
  };

  const rl = createInterface({ input: options.input, output: interactive ? options.output : undefined, terminal: interactive, crlfDelay: Infinity });
  try {
    if (!interactive) {
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
          write(`${await installFromTerminal(core, { worldId, chatId, userId: user, source: install, interactive: false })}\n`);
          continue;
        }
        await turn(line);
      }
      return 0;
    }
    write(`skillbot chat: ${chatId} (resume with --chat ${chatId.slice(worldId.length + 1)}). /skills, /skill ID [args], /attach PATH, /install PATH.skill, /usage, /new, /quit; Ctrl-C stops a turn\n`);
    if (options.logFile) write(`Logs go to ${options.logFile}; warnings also show here.\n`);
    const running = new Set<Promise<unknown>>();
    // Ctrl-C during a turn stops the turn (its model stream, its script, its question); between turns it quits.
    rl.on('SIGINT', () => {
      if (running.size === 0) {
        rl.close();
        return;
      }
      write('\n  … stopping\n');
      void core.turns
        .stop({ worldId, chatId, userId: user })
        .then((result) => {
          if (result.kind !== 'stopping') write('  … nothing to stop\n');
        })
        .catch((error: unknown) => write(`  … could not stop: ${(error as Error).message}\n`));
    });
    // Not awaited: a message typed during a turn is queued and answered after it. The prompt comes back once no
    // turn is running, so answers are not printed after a dangling "you>".
    const queue = (text: string) => {
      const install = parseInstallCommand(text);
      // An install's review is a question like a turn's: answered at the prompt while it waits.
      const work =
        install === undefined
          ? turn(text)
          : installFromTerminal(core, { worldId, chatId, userId: user, source: install, interactive: true })
              .then((said) => write(`${said}\n`))
              .catch((error: unknown) => write(`Not installed: ${(error as Error).message}\n`));
      const pending = work.finally(() => {
        running.delete(pending);
        if (running.size === 0) rl.prompt();
      });
      running.add(pending);
    };
    rl.setPrompt('you> ');
    rl.prompt();
    for await (const line of rl) {
      const text = line.trim();
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
          chatId = terminalChatId(worldId, undefined);
          write(`A fresh conversation: ${chatId} (resume with --chat ${chatId.slice(worldId.length + 1)}).\n`);
        }
      } else if (text === '/usage') {
        // This conversation's totals, then the person's own figures against the world's limits (as Slack's /usage).
        write(`${await core.turns.usageText(chatId, worldId, user)}\n`);
      } else if (text !== '') {
        queue(text);
        continue;
      }
      if (running.size === 0) rl.prompt();
    }
    await Promise.allSettled(running);
    return 0;
  } finally {
    rl.close();
    removePort();
    removePresenter();
    core.approvals.off('hitl-option-resolved', onResolved);
  }
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
