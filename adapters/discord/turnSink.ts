// A turn's TurnSink in a Discord thread: typing, a status message with a Stop button from the start that shows
// progress and then the answer as it is written, the answer (led by what the model wrote before its tool calls)
// split to fit.
import { ButtonStyle, ComponentType } from 'discord.js';
import type { Logger } from '../../src/ops/log.ts';
import type { TurnSink } from '../../src/platform/index.ts';
import type { DiscordApi } from './discordApi.ts';
import type { Outlet } from './outlets.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';
import { joinRounds, tailOf } from '../../src/text/turnText.ts';
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
/** Edits of the answer being written, at most this often: well within Discord's 5 edits per 5 s in a channel. */
export const PREVIEW_EVERY_MS = 1200;
/** A long answer shows its latest words while it is written (the whole answer is split at the end). */
const PREVIEW_CHARS = 1900;
export const WORKING_TEXT = '⏳ Working on it…';

export interface DiscordTurnSink extends TurnSink {
  /** Stops the typing indicator and ignores later progress (the turn ended, or the bot is stopping). */
  close(): void;
}

/**
 * One turn's sink: the typing indicator while the turn runs and, from the start, one status message with the Stop
 * button: progress, then the answer as it is written (edits spaced to Discord's rate limits, the latest text
 * winning), then the answer itself, split at 2,000 characters.
 */
export function createTurnSink(outlet: Outlet, api: DiscordApi, log: Logger, turnId?: string): DiscordTurnSink {
  let closed = false;
  let updates: Promise<void> = Promise.resolve();
  let pending: string | undefined;
  let pumping = false;
  /** Texts the model wrote before its tool calls: they lead the answer, so each shows once, in its place. */
  const rounds: string[] = [];
  let draft = '';
  let previewTimer: NodeJS.Timeout | undefined;
  let lastPreviewAt = 0;
  const controls = turnId === undefined ? undefined : stopControls(turnId);
  // One status call at a time; texts that came meanwhile collapse into the latest.
  const update = (text: string) => {
    if (closed) return;
    pending = text;
    if (pumping) return;
    pumping = true;
    updates = (async () => {
      while (pending !== undefined && !closed) {
        const next = pending;
        pending = undefined;
        await outlet.status(next, controls).catch((error: unknown) => log.warn({ err: error }, 'updating the status failed'));
      }
      pumping = false;
    })();
  };
  const type = () => void api.typing(outlet.channelId).catch((error: unknown) => log.debug({ err: error }, 'typing indicator failed'));
  type();
  const timer = setInterval(type, TYPING_EVERY_MS);
  timer.unref();
  const cap = setTimeout(() => clearInterval(timer), TYPING_AT_MOST_MS);
  cap.unref();
  const endPreview = () => {
    clearTimeout(previewTimer);
    previewTimer = undefined;
    draft = '';
  };
  const close = () => {
    closed = true;
    clearInterval(timer);
    clearTimeout(cap);
    endPreview();
  };
  const written = () => joinRounds([...rounds, draft]);
  /** What was written so far (its tail) with the step the turn is on under it. */
  const withStep = (step: string) => (written() === '' ? step : `${tailOf(written(), PREVIEW_CHARS)}\n\n${step}`);
  const showPreview = () => {
    previewTimer = undefined;
    if (closed || draft.trim() === '') return;
    lastPreviewAt = Date.now();
    update(`${tailOf(written(), PREVIEW_CHARS)} …`);
  };
  // The turn shows itself at once, with its Stop button.
  update(WORKING_TEXT);
  return {
    progress(text) {
      if (draft.trim() !== '') rounds.push(draft);
      endPreview();
      update(withStep(`⏳ ${text}`));
    },
    partial(delta) {
      if (closed) return;
      draft += delta;
      previewTimer ??= setTimeout(showPreview, Math.max(0, lastPreviewAt + PREVIEW_EVERY_MS - Date.now()));
    },
    retrying() {
      endPreview();
      update(withStep('⏳ The model call failed; trying again…'));
    },
    /** The answer, led by the texts written before tool calls (each shown once, here). */
    async reply(markdown) {
      close();
      const chunks = splitMessage(joinRounds([...rounds, markdown]), DISCORD_MESSAGES);
      await updates;
      await outlet.answer(chunks.length > 0 ? chunks : ['(The answer was empty.)']);
    },
    close,
  };
}
