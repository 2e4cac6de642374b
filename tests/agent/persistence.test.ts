import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { startHarness } from './harness.ts';

if (process.env.CI === 'true' && !process.env.REDIS_URL) {
  throw new Error('CI=true needs REDIS_URL: the Redis store tests must run, not skip.');
}

let fake: FakeAnthropic;
let dir: string;
beforeAll(async () => {
  fake = await startFakeAnthropic();
  dir = await mkdtemp(join(tmpdir(), 'skillbot-persist-'));
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function survivesRestart(store: string, chat: string) {
  fake.setBrain(() => textReply('noted: blue'));
  const before = await startHarness({ fake, dir, store });
  await before.say('my favourite colour is blue', chat);
  await before.close();

  let seen = '';
  fake.setBrain((req) => {
    seen = JSON.stringify(req.messages);
    return textReply('blue');
  });
  const after = await startHarness({ fake, dir, store });
  try {
    const { reply } = await after.say('what is my favourite colour?', chat);
    expect(reply).toBe('blue');
    expect(seen).toContain('my favourite colour is blue');
    expect(seen).toContain('noted: blue');
    expect((await after.app.engine.usage(`terminal:local/${chat}`)).turns).toBe(2);
  } finally {
    await after.close();
  }
}

describe('history across a restart', () => {
  it('survives on the sqlite store', async () => {
    await survivesRestart(`sqlite://${join(dir, 'state', 'bot.sqlite')}`, 'sqlite-chat');
  });

  describe.runIf(process.env.REDIS_URL)('on Redis', () => {
    it('survives on the redis store', async () => {
      await survivesRestart(process.env.REDIS_URL!, `redis-chat-${randomUUID()}`);
    });
  });
});
