// Per-world daily token budgets (`dailyTokenBudget` in SKILLBOT_CONFIG): once a world has spent its tokens for the
// UTC day, its messages get a plain sentence instead of a model call; other worlds go on.
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../../src/platform/port.ts';
import { textReply } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('daily token budgets', () => {
  it('answers until the world has spent its budget, then says so without calling the model; another world goes on', async () => {
    harness = await startEngine({
      skills: [],
      tweak: (config) => {
        config.worlds['terminal:local'] = { dailyTokenBudget: 50 };
        config.worlds['slack:T1:C2'] = { dailyTokenBudget: 1_000_000 };
      },
    });
    harness.fake.setBrain(() => textReply('an answer'));
    const first = await harness.say('hello');
    expect(first).toEqual({ reply: 'an answer', status: 'answered' });
    const calls = harness.fake.requests.length;

    const second = await harness.say('and again');
    expect(second.status).toBe('over_budget');
    expect(second.reply).toMatch(/^This channel has used its daily budget of 50 model tokens, so I cannot answer until it resets at 00:00 UTC\./);
    expect(harness.fake.requests.length).toBe(calls);
    expect(await harness.app.metrics.value(harness.app.metrics.budgetRefusals, { world: 'terminal:local' })).toBe(1);

    // Another world's spend is its own.
    const replies: string[] = [];
    harness.app.dispatcher.addPort('slack', { sinkFor: () => ({ progress() {}, reply: async (text) => void replies.push(text) }) });
    const other: IncomingMessage = { worldId: 'slack:T1:C2', chatId: 'slack:T1:C2/1.1', userId: 'U1', text: 'hi' };
    expect((await harness.app.dispatcher.submit(other)).status).toBe('answered');
    expect(replies).toEqual(['an answer']);
  });
});
