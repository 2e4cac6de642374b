// The Slack fake's random rate limits (rateLimitRate): seeded, so a load run that fails replays the same 429s.
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from './slack.ts';

const opened: FakeSlack[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((slack) => slack.close()));
});

async function statuses(slack: FakeSlack, calls: number): Promise<Array<{ status: number; retryAfter: string | null }>> {
  const out: Array<{ status: number; retryAfter: string | null }> = [];
  for (let i = 0; i < calls; i++) {
    const response = await fetch(`${slack.apiUrl}/chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${slack.info.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C1', text: `hello ${i}` }),
    });
    await response.text();
    out.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
  }
  return out;
}

describe('Slack fake: random rate limits', () => {
  it('answers about the asked share of calls with 429 and Retry-After, and the rest normally', async () => {
    const slack = await startFakeSlack();
    opened.push(slack);
    slack.rateLimitRate({ rate: 0.3, retryAfterS: 2, seed: 7 });
    const seen = await statuses(slack, 200);
    const limited = seen.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(30);
    expect(limited.length).toBeLessThan(90);
    expect(limited.every((answer) => answer.retryAfter === '2')).toBe(true);
    // Only the calls that went through were posted.
    expect(slack.messages).toHaveLength(200 - limited.length);
  });

  it('replays the same pattern for the same seed, and stops when turned off', async () => {
    const first = await startFakeSlack();
    const second = await startFakeSlack();
    opened.push(first, second);
    first.rateLimitRate({ rate: 0.5, seed: 3 });
    second.rateLimitRate({ rate: 0.5, seed: 3 });
    const a = (await statuses(first, 40)).map((answer) => answer.status);
    const b = (await statuses(second, 40)).map((answer) => answer.status);
    expect(a).toEqual(b);
    expect(a).toContain(429);
    first.rateLimitRate(null);
    expect((await statuses(first, 20)).every((answer) => answer.status === 200)).toBe(true);
  });

  it('refuses a rate outside [0, 1]', async () => {
    const slack = await startFakeSlack();
    opened.push(slack);
    expect(() => slack.rateLimitRate({ rate: 1.5 })).toThrow(RangeError);
  });
});
