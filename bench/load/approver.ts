// The person in front of Slack: sees each approval question, clicks "Yes, for this thread" after a moment, on
// whichever instance Slack happens to pick, and clicks again if the question is still open a while later.
import { setTimeout as delay } from 'node:timers/promises';
import type { SlackTraffic } from './slackTraffic.ts';
import type { Question } from './slackWatch.ts';

/** How long a person waits for the buttons to go away before clicking again. */
const RECLICK_AFTER_MS = 8_000;
const MAX_CLICKS = 6;

export interface ApproverCounts {
  clicked: number;
  reclicks: number;
}

export class Approver {
  readonly counts: ApproverCounts = { clicked: 0, reclicks: 0 };
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly traffic: SlackTraffic,
    /** Who asked in a thread (only they, or the world's approvers, may answer). */
    private readonly requesterOf: (channel: string, threadTs: string) => string | undefined,
    private readonly random: () => number,
    private readonly stopped: AbortSignal,
    /** While true the person is away: questions stay open (the run holds some open across the kill). */
    private readonly away: () => boolean = () => false,
  ) {}

  answer(question: Question): void {
    const work = this.#answer(question).finally(() => this.#running.delete(work));
    this.#running.add(work);
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }

  async #answer(question: Question): Promise<void> {
    const user = this.requesterOf(question.channel, question.threadTs);
    if (user === undefined) return;
    await this.#pause(200 + this.random() * 600);
    while (this.away() && !this.stopped.aborted) await delay(100);
    for (let click = 0; click < MAX_CLICKS && question.resolvedAt === undefined && !this.stopped.aborted; click++) {
      if (click > 0) this.counts.reclicks += 1;
      else this.counts.clicked += 1;
      await this.traffic.click(
        { user, channel: question.channel, messageTs: question.ts, threadTs: question.threadTs, actionId: 'hitl_yes_in_session', value: question.approvalId },
        this.random,
      );
      await this.#pause(RECLICK_AFTER_MS, () => question.resolvedAt !== undefined);
    }
  }

  /** Waits `ms`, or less once `until` holds or the run stops. */
  async #pause(ms: number, until: () => boolean = () => false): Promise<void> {
    const end = Date.now() + ms;
    while (Date.now() < end && !until() && !this.stopped.aborted) {
      await delay(Math.min(100, end - Date.now()));
    }
  }
}
