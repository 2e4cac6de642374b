// Watches the fake Slack as the run goes: when each message's final reply first appears, and every approval
// question with the moment its message was updated to show the outcome.
import type { FakeSlack, PostedMessage } from '../../tests/fakes/slack.ts';
import { parseFinalReply } from './markers.ts';

export interface Question {
  approvalId: string;
  channel: string;
  threadTs: string;
  ts: string;
  postedAt: number;
  resolvedAt?: number;
  /** The outcome line the resolved message shows. */
  outcome?: string;
}

export interface FinalSeen {
  at: number;
  channel: string;
  ts: string;
  script?: 'ran' | 'notrun';
}

const POLL_MS = 20;

function approvalIdOf(message: PostedMessage): string | undefined {
  for (const block of message.blocks ?? []) {
    const actions = block as { type?: string; elements?: Array<{ action_id?: string; value?: string }> };
    if (actions.type !== 'actions') continue;
    const button = actions.elements?.find((element) => element.action_id?.startsWith('hitl_'));
    if (button?.value) return button.value;
  }
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export class SlackWatch {
  readonly finals = new Map<string, FinalSeen>();
  readonly questions = new Map<string, Question>();
  readonly #questionByTs = new Map<string, Question>();
  readonly #questionsByThread = new Map<string, Question[]>();
  readonly #waiting = new Map<string, () => void>();
  #calls = 0;
  /** The ts of every message read so far. */
  readonly #seen = new Set<string>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly slack: FakeSlack,
    private readonly onQuestion: (question: Question) => void,
  ) {
    this.#timer = setInterval(() => this.poll(), POLL_MS);
  }

  /** Resolves with the time the marker's final reply appeared, or undefined on timeout or abort. */
  waitForFinal(marker: string, timeoutMs: number, signal: AbortSignal): Promise<FinalSeen | undefined> {
    const seen = this.finals.get(marker);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#waiting.delete(marker);
        resolve(this.finals.get(marker));
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      this.#waiting.set(marker, done);
    });
  }

  /** Questions posted into a thread within [from, to]. */
  questionsIn(channel: string, threadTs: string, from: number, to: number): Question[] {
    return (this.#questionsByThread.get(`${channel}/${threadTs}`) ?? []).filter((q) => q.postedAt >= from && q.postedAt <= to);
  }

  poll(): void {
    // New messages are appended, but deleted ones leave the list (the bot deletes none now; the watch must not
    // depend on it): an index cursor would skip what was posted after a delete. Read back from the end to the
    // newest message seen before.
    const messages = this.slack.messages;
    let first = messages.length;
    while (first > 0 && !this.#seen.has(messages[first - 1]?.ts ?? '')) first -= 1;
    for (const message of messages.slice(first)) {
      this.#seen.add(message.ts);
      const approvalId = approvalIdOf(message);
      if (approvalId === undefined || this.questions.has(approvalId) || message.threadTs === undefined) continue;
      const question: Question = { approvalId, channel: message.channel, threadTs: message.threadTs, ts: message.ts, postedAt: message.postedAt };
      this.questions.set(approvalId, question);
      this.#questionByTs.set(`${message.channel}/${message.ts}`, question);
      const thread = `${message.channel}/${message.threadTs}`;
      this.#questionsByThread.set(thread, [...(this.#questionsByThread.get(thread) ?? []), question]);
      this.onQuestion(question);
    }
    const calls = this.slack.calls;
    for (; this.#calls < calls.length; this.#calls++) {
      const call = calls[this.#calls];
      if (call?.ok && call.method === 'chat.stopStream') {
        this.#streamEnded(text(call.params.channel), text(call.params.ts), call.at);
        continue;
      }
      if (!call?.ok || (call.method !== 'chat.postMessage' && call.method !== 'chat.update')) continue;
      if (call.method === 'chat.update') {
        const question = this.#questionByTs.get(`${text(call.params.channel)}/${text(call.params.ts)}`);
        if (question && question.resolvedAt === undefined && !text(call.params.blocks).includes('hitl_')) {
          question.resolvedAt = call.at;
          question.outcome = text(call.params.text);
        }
      }
      // A turn's message is written over with its answer as `markdown_text` (or `text`, where Slack takes mrkdwn).
      const final = parseFinalReply(text(call.params.markdown_text) || text(call.params.text));
      if (!final || this.finals.has(final.marker)) continue;
      this.finals.set(final.marker, { at: call.at, channel: text(call.params.channel), ts: text(call.params.ts), ...(final.script ? { script: final.script } : {}) });
      this.#waiting.get(final.marker)?.();
    }
  }

  /** A streamed answer (chat.startStream … stopStream) is final once stopped: its whole text is in the message. */
  #streamEnded(channel: string, ts: string, at: number): void {
    const message = this.slack.messageAt(channel, ts);
    const final = message ? parseFinalReply(message.text) : undefined;
    if (!final || this.finals.has(final.marker)) return;
    this.finals.set(final.marker, { at, channel, ts, ...(final.script ? { script: final.script } : {}) });
    this.#waiting.get(final.marker)?.();
  }

  close(): void {
    clearInterval(this.#timer);
    this.poll();
  }
}
