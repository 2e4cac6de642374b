// 100 people, each in a thread of their own: a chat sends its next message once the previous one is answered
// (or given up on), and `concurrency` chats talk at the same time.
import { setTimeout as delay } from 'node:timers/promises';
import type { FakeSlack } from '../../tests/fakes/slack.ts';
import type { LoadSettings } from './settings.ts';
import { asksForScript, markerOf, userText } from './markers.ts';
import type { SlackTraffic } from './slackTraffic.ts';
import type { SlackWatch } from './slackWatch.ts';

export interface SentMessage {
  chat: number;
  n: number;
  marker: string;
  channel: string;
  threadTs: string;
  user: string;
  script: boolean;
  sentAt: number;
  /** False when no instance took it (every retry failed). */
  delivered: boolean;
  deliveryAttempts: number;
  finalAt?: number;
  scriptResult?: 'ran' | 'notrun';
  /** Approval questions posted in the thread while this message waited for its reply. */
  questions: string[];
}

export interface ChatRunDeps {
  settings: LoadSettings;
  traffic: SlackTraffic;
  watch: SlackWatch;
  botUserId: string;
  /** Where people write: their messages share the workspace's clock and are there for conversations.replies. */
  people: Pick<FakeSlack, 'nextTs' | 'seed'>;
  random: () => number;
  stopped: AbortSignal;
}

export function channelOf(chat: number, channels: number): string {
  return `C0LOAD${String(chat % channels).padStart(2, '0')}`;
}

export function userOf(chat: number): string {
  return `ULOAD${String(chat).padStart(4, '0')}`;
}

async function runChat(deps: ChatRunDeps, chat: number, sent: SentMessage[], threads: Map<string, string>): Promise<void> {
  const { settings, traffic, watch } = deps;
  const channel = channelOf(chat, settings.channels);
  const user = userOf(chat);
  let threadTs = '';
  for (let n = 0; n < settings.turnsPerChat && !deps.stopped.aborted; n++) {
    const ts = deps.people.nextTs();
    if (n === 0) {
      threadTs = ts;
      threads.set(`${channel}/${threadTs}`, user);
    }
    const script = asksForScript(chat, n, settings.scriptChatEvery);
    const input = { channel, user, text: userText(chat, n, deps.botUserId, script), ts, ...(n === 0 ? {} : { threadTs }) };
    const message: SentMessage = {
      chat, n, marker: markerOf(chat, n), channel, threadTs, user, script,
      sentAt: Date.now(), delivered: false, deliveryAttempts: 0, questions: [],
    };
    sent.push(message);
    deps.people.seed({ channel, ts, user, text: input.text, ...(n === 0 ? {} : { threadTs }) });
    // An @mention reaches the bot twice, as in Slack: a `message` event and an `app_mention` event.
    const deliveries = await Promise.all(
      n === 0 ? [traffic.deliverMessage('message', input), traffic.deliverMessage('app_mention', input)] : [traffic.deliverMessage('message', input)],
    );
    message.sentAt = Math.min(...deliveries.map((delivery) => delivery.sentAt));
    message.delivered = deliveries.some((delivery) => delivery.ok);
    message.deliveryAttempts = deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0);
    const final = message.delivered ? await watch.waitForFinal(message.marker, settings.replyTimeoutMs, deps.stopped) : undefined;
    if (final) {
      message.finalAt = final.at;
      if (final.script) message.scriptResult = final.script;
    }
    message.questions = watch.questionsIn(channel, threadTs, message.sentAt, message.finalAt ?? Date.now()).map((q) => q.approvalId);
    // A person takes a moment before writing again.
    await delay(50 + deps.random() * 200, undefined, { signal: deps.stopped }).catch(() => undefined);
  }
}

/** Runs every chat; resolves when all are done or the run is stopped. `threads` maps channel/thread to its person. */
export async function runChats(deps: ChatRunDeps, sent: SentMessage[], threads: Map<string, string>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (!deps.stopped.aborted) {
      const chat = next++;
      if (chat >= deps.settings.chats) return;
      await runChat(deps, chat, sent, threads);
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.settings.concurrency, deps.settings.chats) }, worker));
}
