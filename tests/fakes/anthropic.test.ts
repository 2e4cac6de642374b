import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  echoBrain, lastToolResult, lastUserText, scripted, startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic,
} from './anthropic.ts';

const MODEL = 'claude-sonnet-5-5';
let fake: FakeAnthropic | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: Parameters<typeof startFakeAnthropic>[0] = {}): Promise<{ fake: FakeAnthropic; client: Anthropic }> {
  fake = await startFakeAnthropic(options);
  return { fake, client: new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 }) };
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('fake Anthropic Messages API through the real SDK', () => {
  it('streams text as named SSE events that the SDK assembles into a message with usage', async () => {
    const { fake, client } = await start({ brain: () => textReply('Hello from the fake model, streamed in several pieces.') });
    const deltas: string[] = [];
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Hello from the fake model, streamed in several pieces.');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake model, streamed in several pieces.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.usage.cache_read_input_tokens).toBe(0);
    expect(fake.requests[0]?.usage?.output_tokens).toBe(message.usage.output_tokens);
  });

  it('sends every event of the real protocol, each as `event: X` then `data: {json}`', async () => {
    const { fake } = await start({ brain: () => toolUseReply('get_weather', { city: 'Paris' }, { text: 'Checking.' }) });
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2026-10-21', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'weather?' }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    const names = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const name = eventLine?.replace(/^event: /, '');
      expect((JSON.parse(dataLine?.replace(/^data: /, '') ?? '') as { type: string }).type).toBe(name);
      return name;
    });
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(names).toContain('content_block_delta');
    expect(names.filter((name) => name === 'content_block_start')).toHaveLength(2);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
  });

  it('streams tool_use input as input_json_delta chunks that the SDK parses back into the input', async () => {
    const input = { city: 'Zürich', days: [1, 2, 3], units: { temperature: 'celsius' } };
    const { client } = await start({ brain: () => toolUseReply('get_weather', input, { text: 'Let me look.' }) });
    const partials: string[] = [];
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'weather?' }] });
    stream.on('inputJson', (partial) => partials.push(partial));
    const message = await stream.finalMessage();

    expect(partials.filter(Boolean).length).toBeGreaterThan(2);
    expect(partials.join('')).toBe(JSON.stringify(input));
    expect(message.stop_reason).toBe('tool_use');
    const toolUse = message.content[1];
    expect(toolUse?.type === 'tool_use' && toolUse.name).toBe('get_weather');
    expect(toolUse?.type === 'tool_use' && toolUse.input).toEqual(input);
    expect(toolUse?.type === 'tool_use' && toolUse.id).toMatch(/^toolu_/);
  });

  it('answers non-streaming requests with the whole Message', async () => {
    const { client } = await start({ brain: () => toolUseReply('get_weather', { city: 'Oslo' }, { id: 'toolu_fixed' }) });
    const message = await client.messages.create({ model: MODEL, max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'weather?' }] });
    expect(message.type).toBe('message');
    expect(message.model).toBe(MODEL);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toMatchObject([{ type: 'tool_use', id: 'toolu_fixed', name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('records each request with its parsed body and the headers the SDK sends', async () => {
    const { fake, client } = await start();
    await client.messages.create({ model: MODEL, max_tokens: 10, system: 'be brief', messages: [{ role: 'user', content: 'ping' }] });
    const [recorded] = fake.requests;
    // SDK 1.x sends the key as a bearer token, not as x-api-key.
    expect(recorded?.headers.authorization).toBe('Bearer test-key');
    expect(recorded?.apiKey).toBe('test-key');
    expect(recorded?.headers['anthropic-version']).toBe('2026-10-21');
    expect(recorded?.body?.system).toBe('be brief');
    expect(recorded?.body?.messages).toEqual([{ role: 'user', content: 'ping' }]);
    expect(recorded).toMatchObject({ seq: 0, method: 'POST', path: '/v1/messages', status: 200, outcome: 'ok', stream: false, brainIndex: 0 });
  });

  it('refuses temperature, top_p and top_k with a 400 invalid_request_error, as API version 2026-10-21 does', async () => {
    const { fake, client } = await start();
    const params = { model: MODEL, max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }], temperature: 0.2 };
    const error: unknown = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((error as APIError).message).toContain('temperature');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.outcome).toBe('invalid');
  });

  it("accepts Anthropic's own bash and editor tools by their versioned types, and refuses an unknown version or a wrong name", async () => {
    const { client } = await start();
    const ask = (tools: unknown[]) =>
      client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], tools } as Anthropic.MessageCreateParamsNonStreaming);
    await expect(ask([{ type: 'bash_20250124', name: 'bash' }, { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }])).resolves.toBeDefined();
    await expect(ask([{ type: 'bash_20990101', name: 'bash' }])).rejects.toThrow(/Input tag 'bash_20990101' found using 'type'/);
    await expect(ask([{ type: 'text_editor_20250728', name: 'str_replace_editor' }])).rejects.toThrow(/name: Input should be 'str_replace_based_edit_tool'/);
  });

  it('refuses a tool_result that answers no tool_use, and a tool_use left without its result', async () => {
    const { client } = await start();
    const orphanResult = client.messages.create({
      model: MODEL, max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nowhere', content: 'x' }] }],
    });
    await expect(orphanResult).rejects.toThrow(/unexpected `tool_use_id`/);
    const unanswered = client.messages.create({
      model: MODEL, max_tokens: 10,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: 'never mind' },
      ],
    });
    await expect(unanswered).rejects.toThrow(/without `tool_result` blocks/);
    const textFirst = client.messages.create({
      model: MODEL, max_tokens: 10,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'text', text: 'here:' }, { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    await expect(textFirst).rejects.toThrow(/must come first/);
  });

  it('takes images in a tool result and refuses one of a type the API does not read', async () => {
    const { client, fake: server } = await start({ brain: scripted([textReply('I see a dot.')]) });
    const asked = (mediaType: string) => client.messages.create({
      model: MODEL, max_tokens: 10,
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'view', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'dot.png' }, { type: 'image', source: { type: 'base64', media_type: mediaType as 'image/png', data: 'iVBORw0KGgo=' } }] }] },
      ],
    });
    await expect(asked('image/bmp')).rejects.toThrow(/content\.1\.source\.media_type/);
    const answer = await asked('image/png');
    expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'I see a dot.' })]);
    expect(server.requests.map((request) => request.outcome)).toEqual(['invalid', 'ok']);
  });

  it('runs a scripted conversation: the brain sees the tool result and answers from it', async () => {
    const { fake, client } = await start({
      brain: scripted([
        toolUseReply('get_weather', { city: 'Lima' }),
        (req) => textReply(`It is ${lastToolResult(req)?.content ?? '?'} in Lima.`),
      ]),
    });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'weather in Lima?' }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 50, tools: [weatherTool], messages });
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id ?? '', content: 'sunny' }] });
    const second = await client.messages.create({ model: MODEL, max_tokens: 50, tools: [weatherTool], messages });
    expect(second.content).toEqual([{ type: 'text', text: 'It is sunny in Lima.', citations: null }]);

    // A third request finds the script exhausted: a non-retryable 500 that names the request.
    await expect(client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'more' }] }))
      .rejects.toThrow(/request #2/);
    expect(fake.requests.map((request) => request.outcome)).toEqual(['ok', 'ok', 'brain_error']);
  });

  it('echoBrain answers with the last user text; setBrain swaps the brain between requests', async () => {
    const { fake, client } = await start({ brain: echoBrain });
    const echoed = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'repeat me' }] }] });
    expect(echoed.content).toMatchObject([{ type: 'text', text: 'repeat me' }]);
    fake.setBrain((req) => textReply(`upper: ${(lastUserText(req) ?? '').toUpperCase()}`));
    const upper = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'loud' }] });
    expect(upper.content).toMatchObject([{ type: 'text', text: 'upper: LOUD' }]);
  });

  it('waits latencyMs before answering (a lower bound only: the machine may be slower)', async () => {
    const { client } = await start({ latencyMs: 150, chunkDelayMs: 5 });
    const started = performance.now();
    await client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'slow' }] }).finalMessage();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('is reached through ANTHROPIC_BASE_URL by a client built without a baseURL option', async () => {
    const { fake } = await start();
    const saved = process.env.ANTHROPIC_BASE_URL;
    process.env.ANTHROPIC_BASE_URL = fake.url;
    try {
      const client = new Anthropic({ apiKey: 'env-key', maxRetries: 0 });
      const message = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'via env' }] });
      expect(message.content).toMatchObject([{ type: 'text', text: 'via env' }]);
      expect(fake.requests[0]?.apiKey).toBe('env-key');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = saved;
    }
  });

  it('keeps every connection of the SDK on loopback, retries and streams included', async () => {
    const origins: string[] = [];
    const peers: string[] = [];
    const onRequest = (message: unknown): void => { origins.push(String((message as { request: { origin: string } }).request.origin)); };
    const onSocket = (message: unknown): void => {
      const socket = (message as { socket: Socket }).socket;
      socket.once('connect', () => peers.push(String(socket.remoteAddress)));
    };
    diagnostics.subscribe('undici:request:create', onRequest);
    diagnostics.subscribe('net.client.socket', onSocket);
    try {
      fake = await startFakeAnthropic();
      const client = new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 2 });
      fake.failNext('529');
      await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'one' }] });
      await client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'two' }] }).finalMessage();
    } finally {
      diagnostics.unsubscribe('undici:request:create', onRequest);
      diagnostics.unsubscribe('net.client.socket', onSocket);
    }
    expect(new URL(fake.url).hostname).toBe('127.0.0.1');
    expect(origins).toHaveLength(3);
    expect(new Set(origins)).toEqual(new Set([fake.url]));
    expect(peers.length).toBeGreaterThan(0);
    expect(peers.every((peer) => peer === '127.0.0.1')).toBe(true);
  });
});
