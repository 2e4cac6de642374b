// A turn's TurnSink in a Discord thread: typing, a status line with a Stop button, the answer split to fit.
import { ButtonStyle, ComponentType } from 'discord.js';
import type { Logger } from '../../src/log.ts';
import type { TurnSink } from '../../src/platform.ts';
import type { DiscordApi } from './discordApi.ts';
import type { Outlet } from './outlets.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';
import { DISCORD_MESSAGES } from './messageLimits.ts';
import { STOP_PREFIX } from './stop.ts';

/** The Stop button under a status line (what a click does belongs to the stop handler). */
export function stopControls(turnId: string): unknown[] {
  return [
    {
      type: ComponentType.ActionRow,
      components: [{ type: ComponentType.Button, style: ButtonStyle.Secondary, label: 'Stop', emoji: { name: '⏹️' }, custom_id: `${STOP_PREFIX}${turnId}`.slice(0, 100) }],
    },
  ];
}

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
export function createTurnSink(outlet: Outlet, api: DiscordApi, log: Logger, turnId?: string): DiscordTurnSink {
  let closed = false;
  let updates: Promise<void> = Promise.resolve();
  const controls = turnId === undefined ? undefined : stopControls(turnId);
  const update = (text: string) => {
    if (closed) return;
    updates = updates.then(() => outlet.status(text, controls)).catch((error: unknown) => log.warn({ err: error }, 'updating the status failed'));
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
      const chunks = splitMessage(markdown, DISCORD_MESSAGES);
      await updates;
      await outlet.answer(chunks.length > 0 ? chunks : ['(The answer was empty.)']);
    },
    close,
  };
}
