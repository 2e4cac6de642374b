import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, textReply, type FakeAnthropic, type FaultKind } from './anthropic.ts';

const MODEL = 'claude-sonnet-5-5';
const params = { model: MODEL, max_tokens: 50, messages: [{ role: 'user' as const, content: 'hello' }] };
let fake: FakeAnthropic | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(maxRetries: number): Promise<{ fake: FakeAnthropic; client: Anthropic }> {
  fake = await startFakeAnthropic({ brain: () => textReply('a reply that is long enough to arrive in several deltas') });
  return { fake, client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries }) };
}

describe('faults of the fake Anthropic API, as the real SDK sees them', () => {
  it.each(['429', '529', '500'] as const)('a %s is retried by the SDK, which then succeeds', async (kind) => {
    const { fake, client } = await start(2);
    fake.failNext(kind, kind);
    const message = await client.messages.create(params);
    expect(message.content).toMatchObject([{ type: 'text' }]);
    expect(fake.requests.map((request) => [request.status, request.outcome])).toEqual([
      [Number(kind), kind], [Number(kind), kind], [200, 'ok'],
    ]);
    expect(fake.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
  });

  it('a 429 carries the API error shape and retry headers; with no retries left the caller gets RateLimitError', async () => {
    const { fake, client } = await start(0);
    fake.failNext({ kind: '429', retryAfterMs: 20, retryAfterSeconds: 2 });
    const error: unknown = await client.messages.create(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const apiError = error as APIError;
    expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(apiError.headers?.get('retry-after')).toBe('2');
    expect(apiError.headers?.get('retry-after-ms')).toBe('20');
    expect(apiError.requestID).toBe('req_fake_0');
  });

  it('a 529 surfaces as an overloaded_error once retries run out', async () => {
    const { fake, client } = await start(1);
    fake.failNext('529', '529');
    const error: unknown = await client.messages.create(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as APIError).status).toBe(529);
    expect((error as APIError).error).toMatchObject({ error: { type: 'overloaded_error' } });
    expect(fake.requests).toHaveLength(2);
  });

  it('a stream cut midway reaches the caller as an error after some text, and the SDK does not retry it', async () => {
    const { fake, client } = await start(2);
    fake.failNext({ kind: 'cut', afterDeltas: 2 });
    const received: string[] = [];
    const stream = client.messages.stream(params);
    stream.on('text', (delta) => received.push(delta));
    const error: unknown = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect((error as Error).message).toBe('terminated');
    expect(received.length).toBe(2);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ status: 200, outcome: 'cut' });
    expect(fake.requests[0]?.usage?.input_tokens).toBeGreaterThan(0);
    // The next request is served normally.
    expect((await client.messages.stream(params).finalMessage()).stop_reason).toBe('end_turn');
  });

  it('a stream cut also breaks iteration of messages.create({ stream: true })', async () => {
    const { fake, client } = await start(2);
    fake.failNext('cut');
    const events: string[] = [];
    const iterate = async (): Promise<void> => {
      for await (const event of await client.messages.create({ ...params, stream: true })) events.push(event.type);
    };
    await expect(iterate()).rejects.toThrow('terminated');
    expect(events[0]).toBe('message_start');
    expect(events).not.toContain('message_stop');
    expect(fake.requests).toHaveLength(1);
  });

  it('a non-streaming body cut halfway is an error for the caller, not retried', async () => {
    const { fake, client } = await start(2);
    fake.failNext('cut');
    // Not an AnthropicError: undici's own TypeError('terminated') comes through as it is.
    await expect(client.messages.create(params)).rejects.toThrow(new TypeError('terminated'));
    expect(fake.requests.map((request) => request.outcome)).toEqual(['cut']);
  });

  it('an overloaded_error event inside a stream becomes an APIError for the caller, not retried', async () => {
    const { fake, client } = await start(2);
    fake.failNext('stream_error');
    const error: unknown = await client.messages.stream(params).finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as APIError).error).toMatchObject({ error: { type: 'overloaded_error' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('stream_error on a non-streaming request is answered as the API would: a 529, which the SDK retries', async () => {
    const { fake, client } = await start(2);
    fake.failNext('stream_error');
    expect((await client.messages.create(params)).stop_reason).toBe('end_turn');
    expect(fake.requests.map((request) => request.outcome)).toEqual(['529', 'ok']);
  });

  it('a hanging request ends with the client timeout, and close() does not wait for it', async () => {
    const { fake, client } = await start(0);
    fake.failNext('hang');
    const error: unknown = await client.messages.create(params, { timeout: 300 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    fake.failNext('hang');
    const pending = client.messages.create(params).catch((caught: unknown) => caught);
    while (fake.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await fake.close();
    expect(await pending).toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it('faultRate draws faults from a seeded generator: the same seed gives the same pattern', async () => {
    const outcomes = async (seed: number): Promise<string[]> => {
      const { fake, client } = await start(0);
      fake.faultRate({ rate: 0.5, kinds: ['429', '529'], seed });
      for (let i = 0; i < 20; i++) await client.messages.create(params).catch(() => undefined);
      const seen = fake.requests.map((request) => request.outcome);
      await fake.close();
      return seen;
    };
    const first = await outcomes(7);
    expect(await outcomes(7)).toEqual(first);
    expect(first).toContain('ok');
    expect(first.some((outcome) => outcome === '429' || outcome === '529')).toBe(true);
    expect(await outcomes(8)).not.toEqual(first);
  });

  it('with a fault rate and enough retries, every call still succeeds', async () => {
    const { fake, client } = await start(10);
    const kinds: FaultKind[] = ['429', '529', '500'];
    fake.faultRate({ rate: 0.3, kinds, seed: 3 });
    for (let i = 0; i < 10; i++) expect((await client.messages.create(params)).stop_reason).toBe('end_turn');
    expect(fake.requests.filter((request) => request.outcome === 'ok')).toHaveLength(10);
    expect(fake.requests.length).toBeGreaterThan(10);
  });

  it('refuses a request without credentials with a 401 authentication_error', async () => {
    const { fake } = await start(0);
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST', headers: { 'anthropic-version': '2026-10-21' }, body: JSON.stringify(params),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });
});
