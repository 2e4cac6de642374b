import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackPort } from '../../adapters/slack/turns.ts';
import { SlackApi, webClientOptions } from '../../adapters/slack/slackApi.ts';
import { silentLogger } from '../../src/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { CHANNEL } from './harness.ts';

let slack: FakeSlack;
let store: Store;
let api: SlackApi;
beforeAll(async () => {
  slack = await startFakeSlack();
  store = await createStore('memory://');
  api = new SlackApi(new webApi.WebClient(slack.info.botToken, webClientOptions(slack.apiUrl)), silentLogger());
});
afterAll(async () => {
  api.close();
  await store.close();
  await slack.close();
});

describe('a turn re-run after a crash', () => {
  it('answers in the placeholder the first run posted, leaving no stale "Working on it" behind', async () => {
    const threadTs = '1700000000.000100';
    const message = { worldId: `slack:${slack.info.teamId}:${CHANNEL}`, chatId: `slack:${slack.info.teamId}:${CHANNEL}/${threadTs}`, userId: 'U1', text: 'hi' };
    const port = slackPort(api, store, silentLogger());
    // The first run posts its placeholder, then its instance dies before answering.
    port.sinkFor(message, 'turn-1');
    await slack.waitFor(() => slack.thread(CHANNEL, threadTs)[0], { what: 'the placeholder' });
    for (let i = 0; i < 200 && (await store.get('chats', 'slack-placeholder:turn-1')) === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The re-run (another instance, same turn id) answers.
    await port.sinkFor(message, 'turn-1').reply('the answer');
    const posted = slack.thread(CHANNEL, threadTs);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toBe('the answer');
  });

  it('streams its answer once: the stream a dead first run left mid-answer goes when the new answer shows', async () => {
    const threadTs = '1700000000.000200';
    const message = { worldId: `slack:${slack.info.teamId}:${CHANNEL}`, chatId: `slack:${slack.info.teamId}:${CHANNEL}/${threadTs}`, userId: 'U1', text: 'hi' };
    const port = slackPort(api, store, silentLogger());
    // The first run streams half its answer, then its instance dies.
    port.sinkFor(message, 'turn-2').partial?.('the half');
    await slack.waitFor(() => slack.thread(CHANNEL, threadTs).find((posted) => posted.text === 'the half'), { what: 'the half-streamed answer' });
    for (let i = 0; i < 200 && (await store.get('chats', 'slack-stream:turn-2')) === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The re-run streams the whole answer and finishes.
    const rerun = port.sinkFor(message, 'turn-2');
    rerun.partial?.('the whole answer');
    await rerun.reply('the whole answer');
    await slack.waitFor(() => (slack.thread(CHANNEL, threadTs).some((posted) => posted.text === 'the half') ? undefined : true), {
      what: 'the half answer to go',
    });
    expect(slack.thread(CHANNEL, threadTs).map((posted) => posted.text)).toEqual(['the whole answer']);
  });
});
