// The fault the run is about: once enough messages are answered, instance A dies by SIGKILL mid-traffic and
// comes back a few seconds later on the same port; Slack keeps delivering to it all along.
import { setTimeout as delay } from 'node:timers/promises';
import type { Instance } from './instances.ts';

/** How long the kill waits, once due, for a question of A's to be open (so one is in flight when A dies). */
const OPEN_QUESTION_WAIT_MS = 30_000;

export interface KillTimeline {
  answeredAtKill?: number;
  /** Open questions when A died, and how many of them A had asked. */
  openQuestionsAtKill?: number;
  openOfAAtKill?: number;
  killedAt?: number;
  /** The chats the instance held (was answering) when it died: their failover is measured. */
  chatsOfKilled?: string[];
  restartedAt?: number;
  healthyAgainAt?: number;
  restartError?: string;
}

export async function killAndRestart(
  instance: Instance,
  answered: () => number,
  options: {
    afterAnswered: number;
    /** Open questions, and how many of them this instance asked. */
    openQuestions: () => Promise<{ open: number; ofInstance: number }>;
    /** The chats this instance holds now (read just before the kill). */
    chatsHeld: () => Promise<string[]>;
    restartAfterMs: number;
    stopped: AbortSignal;
  },
): Promise<KillTimeline> {
  const timeline: KillTimeline = {};
  while (answered() < options.afterAnswered) {
    if (options.stopped.aborted) return timeline;
    await delay(50);
  }
  const due = Date.now();
  let open = await options.openQuestions();
  while (open.ofInstance === 0 && Date.now() - due < OPEN_QUESTION_WAIT_MS) {
    if (options.stopped.aborted) return timeline;
    await delay(100);
    open = await options.openQuestions();
  }
  timeline.answeredAtKill = answered();
  timeline.openQuestionsAtKill = open.open;
  timeline.openOfAAtKill = open.ofInstance;
  timeline.chatsOfKilled = await options.chatsHeld();
  timeline.killedAt = Date.now();
  instance.kill();
  await delay(options.restartAfterMs, undefined, { signal: options.stopped }).catch(() => undefined);
  if (options.stopped.aborted) return timeline;
  timeline.restartedAt = Date.now();
  try {
    const life = await instance.start();
    timeline.healthyAgainAt = life.healthyAt;
  } catch (error) {
    timeline.restartError = error instanceof Error ? error.message : String(error);
  }
  return timeline;
}
