import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from './anthropic.ts';

const MODEL = 'claude-sonnet-5-5';
const SYSTEM = `You are skillbot. ${'Follow the catalog of skills carefully. '.repeat(40)}`;
const ephemeral = { type: 'ephemeral' as const };
let fake: FakeAnthropic | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(minCacheTokens = 0): Promise<{ fake: FakeAnthropic; client: Anthropic }> {
  fake = await startFakeAnthropic({ minCacheTokens });
  return { fake, client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }) };
}

function ask(client: Anthropic, system: string, text: string): Promise<Anthropic.Usage> {
  return client.messages
    .stream({ model: MODEL, max_tokens: 50, system: [{ type: 'text', text: system, cache_control: ephemeral }], messages: [{ role: 'user', content: text }] })
    .finalMessage()
    .then((message) => message.usage);
}

describe('prompt caching in the fake Anthropic API', () => {
  it('reads the cache only for a prefix byte-identical to one an earlier request marked', async () => {
    const { client } = await start();
    const first = await ask(client, SYSTEM, 'first question');
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.cache_creation?.ephemeral_5m_input_tokens).toBe(first.cache_creation_input_tokens);

    const second = await ask(client, SYSTEM, 'second question');
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBeGreaterThan(0);

    const oneByteOff = await ask(client, SYSTEM.replace('skillbot', 'skillbOt'), 'second question');
    expect(oneByteOff.cache_read_input_tokens).toBe(0);
    expect(oneByteOff.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('caches nothing for a request without cache_control, and nothing for a different model', async () => {
    const { client } = await start();
    const plain = (): Promise<Anthropic.Message> =>
      client.messages.create({ model: MODEL, max_tokens: 10, system: SYSTEM, messages: [{ role: 'user', content: 'q' }] });
    await plain();
    expect((await plain()).usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });

    await ask(client, SYSTEM, 'warm');
    const otherModel = await client.messages.create({
      model: 'claude-haiku-5-5', max_tokens: 10, system: [{ type: 'text', text: SYSTEM, cache_control: ephemeral }], messages: [{ role: 'user', content: 'q' }],
    });
    expect(otherModel.usage.cache_read_input_tokens).toBe(0);
  });

  it('a changed tool definition invalidates the system prompt after it (tools come first)', async () => {
    const { client } = await start();
    const withTool = (description: string): Promise<Anthropic.Message> => client.messages.create({
      model: MODEL, max_tokens: 10,
      tools: [{ name: 'load_skill', description, input_schema: { type: 'object', properties: {} } }],
      system: [{ type: 'text', text: SYSTEM, cache_control: ephemeral }],
      messages: [{ role: 'user', content: 'q' }],
    });
    await withTool('Load a skill');
    expect((await withTool('Load a skill')).usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect((await withTool('Load a skill!')).usage.cache_read_input_tokens).toBe(0);
  });

  it('a growing conversation reads the previous turn back through the 20-block lookback, not further', async () => {
    const { client } = await start();
    const history: Anthropic.MessageParam[] = [];
    const turn = async (): Promise<Anthropic.Usage> => {
      const marked = history.map((message, index) => index === history.length - 1 && typeof message.content === 'string'
        ? { ...message, content: [{ type: 'text' as const, text: message.content, cache_control: ephemeral }] }
        : message);
      const { usage } = await client.messages.create({ model: MODEL, max_tokens: 10, system: SYSTEM, messages: marked });
      return usage;
    };
    history.push({ role: 'user', content: 'turn 0' });
    const opening = await turn();
    history.push({ role: 'assistant', content: 'answer 0' }, { role: 'user', content: 'turn 1' });
    const next = await turn();
    expect(next.cache_read_input_tokens).toBe(opening.cache_creation_input_tokens);

    // 22 more blocks after the last marked prefix: beyond the 20-block lookback, the prefix is not found.
    for (let i = 2; i < 13; i++) history.push({ role: 'assistant', content: `answer ${i}` }, { role: 'user', content: `turn ${i}` });
    expect((await turn()).cache_read_input_tokens).toBe(0);
  });

  it('top-level cache_control marks the last block, as automatic caching does', async () => {
    const { client } = await start();
    const auto = (): Promise<Anthropic.Message> => client.messages.create({
      model: MODEL, max_tokens: 10, cache_control: ephemeral, system: SYSTEM, messages: [{ role: 'user', content: 'same question' }],
    });
    const first = await auto();
    expect(first.usage.input_tokens).toBe(0);
    expect((await auto()).usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });

  it('does not cache a prefix shorter than minCacheTokens', async () => {
    const { client } = await start(100_000);
    await ask(client, SYSTEM, 'one');
    const second = await ask(client, SYSTEM, 'two');
    expect(second).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  it('refuses more than four cache_control breakpoints, as the API does', async () => {
    const { client } = await start();
    const system = Array.from({ length: 5 }, (_, i) => ({ type: 'text' as const, text: `part ${i}`, cache_control: ephemeral }));
    await expect(client.messages.create({ model: MODEL, max_tokens: 10, system, messages: [{ role: 'user', content: 'q' }] }))
      .rejects.toThrow(/maximum of 4 blocks with cache_control/);
  });

  it('sums the cache-read share across requests for benches, and forgets entries on clearCache', async () => {
    const { fake, client } = await start();
    await ask(client, SYSTEM, 'a');
    await ask(client, SYSTEM, 'b');
    const stats = fake.cacheStats();
    expect(stats.requests).toBe(2);
    expect(stats.cacheReadTokens).toBe(stats.cacheCreationTokens);
    expect(stats.readShare).toBeGreaterThan(0.3);
    expect(stats.readShare).toBeLessThan(0.5);
    fake.clearCache();
    expect((await ask(client, SYSTEM, 'c')).cache_read_input_tokens).toBe(0);
  });
});
