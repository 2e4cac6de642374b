import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult, scripted, textReply, toolUseReply, type BrainRequest } from '../fakes/anthropic.ts';
import { type Harness, NOTES_SKILL, startHarness } from './harness.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const systemText = (req: { body?: { system?: unknown } }) => JSON.stringify(req.body?.system);

describe('the Claude loop through the real SDK', () => {
  it('loads a skill on demand and remembers the conversation on the next turn', async () => {
    let seenResult = '';
    harness = await startHarness({ skills: [NOTES_SKILL] });
    harness.fake.setBrain(
      scripted([
        toolUseReply('load_skill', { skill_id: 'release-notes' }),
        (req: BrainRequest) => {
          seenResult = lastToolResult(req)?.content ?? '';
          return textReply('## v1.2\n- Added login');
        },
        (req: BrainRequest) => textReply(`You said ${req.messages.length} messages ago: ${JSON.stringify(req.messages[0]?.content)}`),
      ]),
    );
    const first = await harness.say('notes for v1.2 please');
    expect(first.reply).toBe('## v1.2\n- Added login');
    expect(seenResult).toContain('<skill_context');
    expect(seenResult).toContain('Group commits into Features and Fixes');
    expect(seenResult).toContain('<reference_files>');

    const second = await harness.say('and again?');
    expect(second.reply).toContain('notes for v1.2 please');
    const last = harness.fake.requests.at(-1);
    // history: user, assistant tool_use, user tool_result, assistant text, then the new user message
    expect(last?.body?.messages).toHaveLength(5);
  });

  it('keeps the system prompt byte-identical across turns and chats, so the cache is read', async () => {
    harness = await startHarness();
    await harness.say('one', 'a');
    await harness.say('two', 'a');
    await harness.say('three', 'b');
    const systems = harness.fake.requests.map(systemText);
    expect(new Set(systems).size).toBe(1);
    expect(systems[0]).toContain('<available_skills>');
    const usage = harness.fake.requests.map((req) => req.usage);
    expect(usage[0]?.cache_read_input_tokens).toBe(0);
    expect(usage[1]?.cache_read_input_tokens).toBeGreaterThan(0);
    expect(usage[2]?.cache_read_input_tokens).toBeGreaterThan(0);
    for (const req of harness.fake.requests) {
      expect(req.body).not.toHaveProperty('temperature');
      expect(req.body).not.toHaveProperty('top_p');
      expect(req.body).not.toHaveProperty('top_k');
    }
    expect(await harness.app.engine.usage('terminal:local/a')).toMatchObject({ turns: 2 });
  });

  it('answers unknown skill ids with a not-found envelope naming the closest ids', async () => {
    let result = '';
    harness = await startHarness();
    harness.fake.setBrain(
      scripted([
        toolUseReply('load_skill', { skill_id: 'release-note' }),
        (req: BrainRequest) => {
          result = lastToolResult(req)?.content ?? '';
          return textReply('no such skill');
        },
      ]),
    );
    await harness.say('hi');
    expect(result).toContain('not_found');
    expect(result).toContain('release-notes');
  });

  it('stops at the per-turn tool cap with a clear message', async () => {
    harness = await startHarness({ tweak: (config) => (config.agent.maxToolRounds = 3) });
    harness.fake.setBrain(() => toolUseReply('load_skill', { skill_id: 'release-notes' }));
    const { reply, status } = await harness.say('loop forever');
    expect(status).toBe('capped');
    expect(reply).toContain('stopped after 3 tool calls');
    expect(harness.fake.requests).toHaveLength(3);
    // The next turn is still a valid conversation for the API.
    harness.fake.setBrain(() => textReply('fine'));
    expect((await harness.say('ok stop')).reply).toBe('fine');
  });
});

describe('failures', () => {
  it('retries 429, 529, 500 and a stream cut midway, then answers once', async () => {
    harness = await startHarness();
    harness.fake.setBrain(() => textReply('made it'));
    harness.fake.failNext('429', '529', 'cut');
    const { reply, status } = await harness.say('hello');
    expect(status).toBe('answered');
    expect(reply).toBe('made it');
    expect(harness.fake.requests.map((req) => req.outcome)).toEqual(['429', '529', 'cut', 'ok']);
  });

  it('tells the user once when the model stays unreachable, and keeps the message in history', async () => {
    harness = await startHarness();
    harness.fake.failNext('529', '529', '529', '529');
    const first = await harness.say('remember the milk');
    expect(first.status).toBe('model_unavailable');
    expect(first.reply).toMatch(/could not reach Claude/);
    let seen: unknown;
    harness.fake.setBrain((req) => {
      seen = req.messages;
      return textReply('ok');
    });
    await harness.say('did you get it?');
    expect(JSON.stringify(seen)).toContain('remember the milk');
    expect(JSON.stringify(seen)).toContain('did you get it?');
  });
});

describe('the turn queue', () => {
  it('answers every message sent during a turn, in order, each after the previous one', async () => {
    harness = await startHarness();
    const seen: string[] = [];
    harness.fake.setBrain((req) => {
      seen.push(JSON.stringify(req.messages.at(-1)?.content));
      return textReply(`answer ${req.index}`);
    });
    const replies = await Promise.all(['m1', 'm2', 'm3'].map((text) => harness!.say(text)));
    expect(replies.map((r) => r.reply)).toEqual(['answer 0', 'answer 1', 'answer 2']);
    expect(seen[1]).toContain('m2');
    // Turn 2 saw turn 1's answer: the turns ran one after the other.
    expect(JSON.stringify(harness.fake.requests[1]?.body?.messages)).toContain('answer 0');
  });

  it('runs different chats concurrently', async () => {
    harness = await startHarness();
    let inFlight = 0;
    let maxInFlight = 0;
    harness.fake.setBrain(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 100));
      inFlight--;
      return textReply('ok');
    });
    await Promise.all(['a', 'b', 'c'].map((chat) => harness!.say('hi', chat)));
    expect(maxInFlight).toBeGreaterThan(1);
  });
});

describe('our own failures', () => {
  it('tells the person once when its own state is broken (a stored history it cannot read), and does not throw', async () => {
    harness = await startHarness();
    await harness.app.store.set('history', 'terminal:local/c1', { turns: 'not a list' });
    const { reply, status } = await harness.say('hello?');
    expect(status).toBe('failed');
    expect(reply).toMatch(/went wrong on my side/);
    expect(harness.fake.requests).toHaveLength(0);
  });
});

describe('metrics', () => {
  it('counts turns by status and cache tokens', async () => {
    harness = await startHarness();
    await harness.say('one');
    await harness.say('two');
    const text = await harness.app.metrics.render();
    expect(text).toContain('skillbot_turns_total{status="answered"} 2');
    expect(await harness.app.metrics.value(harness.app.metrics.cacheReadTokens)).toBeGreaterThan(0);
  });
});
