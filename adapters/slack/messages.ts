// Messages and @mentions: which ones start or continue a chat, each handled exactly once.
import type { App as BoltApp } from '@slack/bolt';
import { messageFilesOf } from './files.ts';
import { slackChatId, slackWorldId } from './ids.ts';
import { eventEnvelopeSchema, messageEventSchema, unescapeSlack, type MessageEvent } from './payloads.ts';
import { isStopText, stopInThread } from './stop.ts';
import { startTurn, type TurnDeps } from './turns.ts';

export interface MessageEventDeps extends TurnDeps {
  /** False while stopping: nothing new starts. */
  accepting: () => boolean;
  /** The bot's own bot id: its posts never start a turn. */
  botId?: string;
}

export const EMPTY_MENTION_TEXT = 'Mention me with a question, or use `/skills` to see what I can do here.';

/** Subtypes that are still a person's message (others are edits, joins, deletions, bot posts…). */
const PERSON_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

function isDirect(event: MessageEvent): boolean {
  return event.channel_type === 'im' || event.channel.startsWith('D');
}

function stripMention(text: string, botUserId: string): string {
  return text.replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g'), '').trim();
}

interface Delivered {
  event: MessageEvent;
  eventId?: string;
  teamId: string;
  botUserId: string;
}

/** A message of another bot or app (never the bot's own: Bolt drops those, and so does this). */
function botAuthor(event: MessageEvent, self: { botUserId: string; botId?: string }): string[] | undefined {
  if (event.bot_id === undefined && event.subtype !== 'bot_message') return undefined;
  return [event.bot_id, event.user].filter((id): id is string => id !== undefined && id !== self.botUserId && id !== self.botId);
}

async function handleDelivery(deps: MessageEventDeps, { event, eventId, teamId, botUserId }: Delivered): Promise<void> {
  if (event.user === botUserId || (deps.botId !== undefined && event.bot_id === deps.botId)) return;
  const botIds = botAuthor(event, { botUserId, ...(deps.botId ? { botId: deps.botId } : {}) });
  const userId = event.user ?? botIds?.[0];
  if (!userId || botIds?.length === 0) return;
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(event.subtype) && !(botIds && event.subtype === 'bot_message')) return;
  const mentioned = event.type === 'app_mention' || event.text.includes(`<@${botUserId}`);
  const threadTs = event.thread_ts ?? event.ts;
  if (!mentioned && !isDirect(event)) {
    // In a channel, only a reply in a thread the bot takes part in goes on without a mention.
    if (event.thread_ts === undefined) return;
    if (!(await deps.threads.has(slackChatId(slackWorldId(teamId, event.channel), threadTs)))) return;
  }
  const keys = [`message:${teamId}:${event.channel}:${event.ts}`, ...(eventId ? [`event:${eventId}`] : [])];
  const text = unescapeSlack(stripMention(event.text, botUserId));
  const files = messageFilesOf(event.files);
  // Nothing to ask (a bare mention, no words and no file), or "stop", which acts at once, ahead of the chat's
  // queue (where it would wait behind the very turn it should stop): remembered as handled, not queued.
  const stop = isStopText(text);
  const handledHere = (text === '' && files.length === 0) || stop;
  // Before anything of the message is kept: the world's access rules, the person's limits, the bot guard.
  const worldId = slackWorldId(teamId, event.channel);
  // "stop" and a bare mention ask the model nothing: the rules apply, the limits do not count them.
  const admission = await (
    handledHere && !botIds
      ? deps.core.access.check(worldId, userId, 'message', isDirect(event)).then((checked) => (checked.allowed ? { kind: 'allowed' as const } : { kind: 'refused' as const, note: checked.note }))
      : deps.core.access.admit({ worldId, userId, direct: isDirect(event), addressed: mentioned || isDirect(event), key: keys[0] ?? event.ts, ...(botIds ? { botIds } : {}) })
  ).catch((error: unknown) => {
    // The counts live in the store: without it nothing is decided, and Slack delivers the event again.
    throw new RetryLater(`delivery ${eventId ?? event.ts} could not be admitted: ${(error as Error).message}`);
  });
  if (admission.kind !== 'allowed') {
    const remembered = await deps.core.turns.accept(undefined, keys);
    if (remembered === 'refused') throw new RetryLater(`delivery ${eventId ?? event.ts} could not be remembered: the store did not answer`);
    if (remembered === 'queued' && (admission.kind === 'refused' || admission.kind === 'limited')) {
      deps.tasks.run('private refusal', () => deps.api.postEphemeral({ channel: event.channel, user: userId, text: admission.note, ...(event.thread_ts ? { threadTs } : {}) }));
    }
    if (remembered === 'queued' && admission.kind === 'announce') deps.tasks.run('bot cooldown', () => deps.api.post({ channel: event.channel, text: admission.note }));
    return;
  }
  const accepted = handledHere
    ? await deps.core.turns.accept(undefined, keys)
    : await startTurn(deps, { teamId, channelId: event.channel, threadTs, userId, text, ref: event.ts, ...(files.length > 0 ? { files } : {}) }, keys);
  if (accepted === 'refused') throw new RetryLater(`delivery ${eventId ?? event.ts} could not be queued: the store did not answer`);
  if (accepted === 'duplicate') {
    deps.logger.debug({ eventId, ts: event.ts }, 'duplicate Slack delivery dropped');
    return;
  }
  if (stop) deps.tasks.run('stop message', () => stopInThread(deps, { teamId, channelId: event.channel, threadTs, userId }));
  else if (handledHere && mentioned) deps.tasks.run('mention hint', () => deps.api.post({ channel: event.channel, threadTs, text: EMPTY_MENTION_TEXT }));
}

/**
 * The message is not safely queued: answer Slack with an error (not a 200), so it delivers the event again.
 * Bolt's error handler lets exactly this error through to the receiver.
 */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

export function registerMessageEvents(bolt: BoltApp, deps: MessageEventDeps): void {
  const listener = async ({ event, body, context }: { event: unknown; body: unknown; context: { teamId?: string; botUserId?: string } }) => {
    if (!deps.accepting()) return;
    const parsed = messageEventSchema.safeParse(event);
    const envelope = eventEnvelopeSchema.safeParse(body);
    if (!parsed.success) return;
    const teamId = (envelope.success ? envelope.data.team_id : undefined) ?? context.teamId ?? parsed.data.team;
    const botUserId = context.botUserId;
    if (!teamId || !botUserId) {
      deps.logger.warn({ type: parsed.data.type }, 'Slack event without a team or bot user id ignored');
      return;
    }
    const eventId = envelope.success ? envelope.data.event_id : undefined;
    // Awaited: over HTTP the receiver answers Slack only after this (processBeforeResponse), so a 200 means the
    // message is in the store. Queueing takes milliseconds; the turn itself runs later, elsewhere perhaps.
    await handleDelivery(deps, { event: parsed.data, teamId, botUserId, ...(eventId ? { eventId } : {}) });
  };
  bolt.event('app_mention', listener);
  bolt.event('message', listener);
}
