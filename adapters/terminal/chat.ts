import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import type { App } from '../../src/app.ts';
import { formatUsage } from '../../src/agent/usage.ts';
import type { ApprovalRecord } from '../../src/hitl/types.ts';
import type { IncomingMessage, TurnSink } from '../../src/platform.ts';
import { parseChoice, TerminalPresenter } from './presenter.ts';

export interface TerminalOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  worldId?: string;
  chatId?: string;
}

const WORLD = 'terminal:local';

/** The chat id a session uses: `--chat abc` resumes `terminal:local/abc`; a full chat id is accepted too. */
export function terminalChatId(worldId: string, chat: string | undefined): string {
  if (!chat) return `${worldId}/${randomUUID().slice(0, 8)}`;
  return chat.includes('/') ? chat : `${worldId}/${chat}`;
}

/**
 * The terminal chat. Interactive: a prompt, answers streamed, approvals as a numbered choice. Pipe mode (stdin
 * not a TTY): one message per line, one answer per message, every approval answered `no` and said so.
 */
export async function runTerminalChat(app: App, options: TerminalOptions): Promise<number> {
  const worldId = options.worldId ?? WORLD;
  const chatId = terminalChatId(worldId, options.chatId);
  const interactive = options.input.isTTY === true;
  const write = (text: string) => void options.output.write(text);
  const user = userInfo().username || 'local';
  const presenter = new TerminalPresenter(write);
  const removePresenter = interactive ? app.approvals.addPresenter('terminal', presenter) : () => {};
  const onResolved = (record: ApprovalRecord) => {
    if (!interactive && record.chatId === chatId) {
      write(`[approval] ${record.title}: answered ${record.outcome} automatically (unattended run, nobody to ask).\n`);
    }
  };
  app.approvals.on('hitl-option-resolved', onResolved);

  const turn = (text: string) => {
    const message: IncomingMessage = { worldId, chatId, userId: user, text };
    return app.engine.handleMessage(message, interactive ? streamingSink(write) : pipeSink(write));
  };

  const rl = createInterface({ input: options.input, output: interactive ? options.output : undefined, terminal: interactive, crlfDelay: Infinity });
  try {
    if (!interactive) {
      for await (const line of rl) {
        if (line.trim() === '') continue;
        await turn(line);
      }
      return 0;
    }
    write(`skillbot chat: ${chatId} (resume with --chat ${chatId.slice(worldId.length + 1)}). /usage, /quit\n`);
    const running = new Set<Promise<unknown>>();
    rl.setPrompt('you> ');
    rl.prompt();
    for await (const line of rl) {
      const text = line.trim();
      const question = presenter.pending;
      if (question) {
        const option = parseChoice(text, question.options);
        if (!option) write('Type 1, 2 or 3 (or yes_once, yes_in_session, no).\n');
        else await app.approvals.respond({ worldId, approvalId: question.id, option, userId: user });
      } else if (text === '/quit' || text === '/exit') {
        break;
      } else if (text === '/usage') {
        write(`${formatUsage(await app.engine.usage(chatId))}\n`);
      } else if (text !== '') {
        // Not awaited: a message typed during a turn is queued by the engine and answered after it. The prompt
        // comes back once no turn is running, so answers are not printed after a dangling "you>".
        const pending = turn(text).finally(() => {
          running.delete(pending);
          if (running.size === 0) rl.prompt();
        });
        running.add(pending);
        continue;
      }
      if (running.size === 0) rl.prompt();
    }
    await Promise.allSettled(running);
    return 0;
  } finally {
    rl.close();
    removePresenter();
    app.approvals.off('hitl-option-resolved', onResolved);
  }
}

/** Interactive: stream the answer as it comes; print the final text only when it was not streamed. */
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
      if (streamed.trim() && markdown.trim() === streamed.trim()) write('\n');
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
