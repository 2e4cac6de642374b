import type { Logger } from '../../src/log.ts';
import type { TurnSink } from '../../src/platform.ts';
import type { DiscordApi } from './discordApi.ts';
import type { Outlet } from './outlets.ts';
import { splitMessage } from './split.ts';

/** Discord shows "is typing…" for about 10 seconds after each call. */
const TYPING_EVERY_MS = 8000;
/**
 * A turn whose answer is never asked of its sink (a re-run of a message already answered before a crash) would
 * type forever: the indicator stops after this long in any case.
 */
const TYPING_AT_MOST_MS = 15 * 60_000;

export interface DiscordTurnSink extends TurnSink {
  /** Stops the typing indicator and ignores later progress (the turn ended, or the bot is stopping). */
  close(): void;
}

/**
 * One turn's sink: the typing indicator while the turn runs, progress in one status line (updates queued so they
 * land in order), the answer split at 2,000 characters. Streamed deltas are not shown: Discord rate-limits edits.
 */
export function createTurnSink(outlet: Outlet, api: DiscordApi, log: Logger): DiscordTurnSink {
  let closed = false;
  let updates: Promise<void> = Promise.resolve();
  const update = (text: string) => {
    if (closed) return;
    updates = updates.then(() => outlet.status(text)).catch((error: unknown) => log.warn({ err: error }, 'updating the status failed'));
  };
  const type = () => void api.typing(outlet.channelId).catch((error: unknown) => log.debug({ err: error }, 'typing indicator failed'));
  type();
  const timer = setInterval(type, TYPING_EVERY_MS);
  timer.unref();
  const cap = setTimeout(() => clearInterval(timer), TYPING_AT_MOST_MS);
  cap.unref();
  const close = () => {
    closed = true;
    clearInterval(timer);
    clearTimeout(cap);
  };
  return {
    progress(text) {
      update(`⏳ ${text}`);
    },
    retrying() {
      update('⏳ The model call failed; trying again…');
    },
    async reply(markdown) {
      close();
      const chunks = splitMessage(markdown);
      await updates;
      await outlet.answer(chunks.length > 0 ? chunks : ['(The answer was empty.)']);
    },
    close,
  };
}
