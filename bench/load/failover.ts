// Failover time: from the kill to the first answer in each chat the dead instance was answering.
import type { SentMessage } from './chatRun.ts';
import { percentile } from './figures.ts';

export interface Failover {
  /** Chats of the dead instance with a message unanswered at the kill. */
  chats: number;
  /** Chats whose first answer after the kill waited on the person's click (a script turn): not a failover time. */
  waitedOnPerson: number;
  /** Chats of the dead instance that got no answer after the kill. */
  unanswered: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * `chatIds` are core chat ids (`slack:T:C/threadTs`); a chat's failover is the time to its first final reply after
 * the kill. A chat whose first answer was a script turn waited for the person's click (who is away around the kill
 * on purpose): it is counted apart, not timed.
 */
export function failoverOf(chatIds: string[], killedAt: number, sent: SentMessage[]): Failover {
  const times: number[] = [];
  let unanswered = 0;
  let waitedOnPerson = 0;
  for (const chatId of chatIds) {
    const [world, threadTs] = chatId.split('/');
    const channel = world?.split(':')[2];
    const ofChat = sent.filter((message) => message.channel === channel && message.threadTs === threadTs);
    // A chat whose every message was answered before the kill (its lease not let go yet) had nothing to fail over.
    if (ofChat.every((message) => message.finalAt !== undefined && message.finalAt < killedAt)) continue;
    const answers = ofChat
      .filter((message) => message.finalAt !== undefined && message.finalAt >= killedAt)
      .sort((a, b) => (a.finalAt ?? 0) - (b.finalAt ?? 0));
    const first = answers[0];
    if (first === undefined) unanswered += 1;
    else if (first.script) waitedOnPerson += 1;
    else times.push((first.finalAt ?? 0) - killedAt);
  }
  return {
    chats: times.length + waitedOnPerson + unanswered,
    waitedOnPerson,
    unanswered,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: times.length === 0 ? 0 : Math.max(...times),
  };
}
