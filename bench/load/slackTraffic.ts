// Slack's side of the wire: signed event deliveries and button clicks, spread round robin over the instances,
// retried like Slack retries (same event id, x-slack-retry-num/-reason) on the next instance when a delivery
// fails: connection refused or reset (a dead instance), a 5xx, or no answer within 3 s.
import { setTimeout as delay } from 'node:timers/promises';
import { clickPayload, eventBody, messageEvent, slackSignature, type ClickInput, type RequestWorkspace, type UserMessage } from '../../tests/fakes/slack.ts';

/** Slack waits 3 s for the 200. */
const ANSWER_WITHIN_MS = 3_000;
/**
 * The waits before each retry. `slack`: Slack retries three times, at about 0 s, 1 min and 5 min (compressed here,
 * the last one still well after a failover). `aggressive`: 0.3, 1 and 2 s, as a proxy, a load balancer or another
 * platform might: every retry comes before a dead instance's chats are taken over, so a delivery must be accepted
 * whole by whichever instance takes it, never held half-way by the dead one.
 */
export const RETRY_SCHEDULES = { slack: [0, 2_000, 35_000], aggressive: [300, 1_000, 2_000] } as const;
export type RetrySchedule = keyof typeof RETRY_SCHEDULES;

export interface DeliveryResult {
  ok: boolean;
  /** When the first attempt was sent (the message's delivery time). */
  sentAt: number;
  attempts: number;
  /** Why each failed attempt failed. */
  failures: string[];
}

export interface TrafficCounts {
  deliveries: number;
  retries: number;
  undelivered: number;
  clicks: number;
  failedClicks: number;
}

export class SlackTraffic {
  readonly counts: TrafficCounts = { deliveries: 0, retries: 0, undelivered: 0, clicks: 0, failedClicks: 0 };
  #next = 0;

  constructor(
    private readonly eventsUrls: string[],
    private readonly signingSecret: string,
    private readonly workspace: RequestWorkspace,
    private readonly stopped: AbortSignal,
    private readonly retryDelaysMs: readonly number[] = RETRY_SCHEDULES.slack,
  ) {}

  /** One user message as an event of `type`, delivered until an instance answers 200 (or retries run out). */
  deliverMessage(type: 'message' | 'app_mention', input: UserMessage & { ts: string }): Promise<DeliveryResult> {
    const body = eventBody(this.workspace, messageEvent(type, input));
    return this.#deliver(JSON.stringify(body), 'application/json');
  }

  /** A button click on a random instance. Slack does not retry these: the caller clicks again if nothing changed. */
  async click(input: ClickInput, random: () => number): Promise<boolean> {
    this.counts.clicks += 1;
    const url = this.eventsUrls[Math.floor(random() * this.eventsUrls.length)] ?? this.eventsUrls[0] ?? '';
    const form = new URLSearchParams({ payload: JSON.stringify(clickPayload(this.workspace, input)) }).toString();
    const outcome = await this.#send(url, form, 'application/x-www-form-urlencoded', undefined);
    if (outcome !== 'ok') this.counts.failedClicks += 1;
    return outcome === 'ok';
  }

  async #deliver(body: string, contentType: string): Promise<DeliveryResult> {
    this.counts.deliveries += 1;
    const first = this.#next++;
    const result: DeliveryResult = { ok: false, sentAt: Date.now(), attempts: 0, failures: [] };
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) {
        this.counts.retries += 1;
        await delay(this.retryDelaysMs[attempt - 1] ?? 0, undefined, { signal: this.stopped }).catch(() => undefined);
        if (this.stopped.aborted) break;
      }
      const url = this.eventsUrls[(first + attempt) % this.eventsUrls.length] ?? '';
      result.attempts += 1;
      const reason = result.failures.at(-1)?.startsWith('timeout') ? 'http_timeout' : 'http_error';
      const outcome = await this.#send(url, body, contentType, attempt === 0 ? undefined : { num: attempt, reason });
      if (outcome === 'ok') {
        result.ok = true;
        return result;
      }
      result.failures.push(outcome);
    }
    this.counts.undelivered += 1;
    return result;
  }

  /** 'ok' for a 200; otherwise why not. */
  async #send(url: string, body: string, contentType: string, retry: { num: number; reason: string } | undefined): Promise<string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(this.signingSecret, timestamp, body),
      ...(retry ? { 'x-slack-retry-num': String(retry.num), 'x-slack-retry-reason': retry.reason } : {}),
    };
    try {
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
      await response.arrayBuffer();
      return response.status === 200 ? 'ok' : `status ${response.status}`;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'TimeoutError') return 'timeout';
      const cause = (error as { cause?: { code?: string } }).cause;
      return `network ${cause?.code ?? (error as Error).message}`;
    }
  }
}
