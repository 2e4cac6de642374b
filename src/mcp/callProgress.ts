// A server's progress notifications for one tool call, shown on the turn's status line (TurnSink.progress: Slack's
// assistant status, Discord's status message, the terminal's line) as "github: create_issue, 3/10 files". A server
// may send hundreds a second: the line changes at most once a second, the latest news kept for the next second.
import type { Progress } from '@modelcontextprotocol/client';
import { stripHidden } from '../text/hidden.ts';

/** The platforms are asked to change a status at most this often. */
const PROGRESS_EVERY_MS = 1000;
/** The server's own words on the line are cut to this. */
const MESSAGE_CHARS = 120;

const number = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));

/** The status line for one notification: server and tool, how far (of how much), the server's message. */
export function progressLine(server: string, tool: string, progress: Progress): string {
  const fraction = progress.total === undefined ? number(progress.progress) : `${number(progress.progress)}/${number(progress.total)}`;
  // The message is the server's: hidden characters out, one line, bounded.
  const message = typeof progress.message === 'string' ? stripHidden(progress.message).text.replace(/\s+/g, ' ').trim().slice(0, MESSAGE_CHARS) : '';
  return `${server}: ${tool}, ${fraction}${message === '' ? '' : ` ${message}`}`;
}

/** Passes lines to `show` at most once per PROGRESS_EVERY_MS, the last one of a burst shown when its second is up. */
export class ProgressThrottle {
  private shownAt = -Infinity;
  private waiting: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly show: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  push(line: string): void {
    const wait = this.shownAt + PROGRESS_EVERY_MS - this.now();
    if (wait <= 0 && this.timer === undefined) return this.emit(line);
    this.waiting = line;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const next = this.waiting;
      this.waiting = undefined;
      if (next !== undefined) this.emit(next);
    }, Math.max(wait, 0));
  }

  /** The call ended: nothing more is shown for it. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = undefined;
  }

  private emit(line: string): void {
    this.shownAt = this.now();
    this.show(line);
  }
}
