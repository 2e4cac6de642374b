// A message run again on another instance after its first instance died: the thread must end up holding each text
// once, in the messages the first run posted (edited in place, never posted again or deleted).
import { randomUUID } from 'node:crypto';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackPort } from '../../adapters/slack/turns.ts';
import { SlackApi, webClientOptions } from '../../adapters/slack/slackApi.ts';
import { progressBlocks, stopControls } from '../../adapters/slack/turnControls.ts';
import { Dispatcher, type TurnRunner } from '../../src/chats/dispatcher.ts';
import { adapterState } from '../../src/platform/adapterState.ts';
import { silentLogger } from '../../src/ops/log.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { CHANNEL, PLACEHOLDER } from './harness.ts';

let slack: FakeSlack;
let store: Store;
let api: SlackApi;
const stops: Array<() => Promise<void>> = [];
beforeAll(async () => {
  slack = await startFakeSlack();
  store = await createStore('memory://');
  api = new SlackApi(new webApi.WebClient(slack.info.botToken, webClientOptions(slack.apiUrl)), silentLogger());
});
afterAll(async () => {
  for (const stop of stops) await stop();
  api.close();
  await store.close();
  await slack.close();
});

const messageIn = (threadTs: string) => ({ worldId: `slack:${slack.info.teamId}:${CHANNEL}`, chatId: `slack:${slack.info.teamId}:${CHANNEL}/${threadTs}`, userId: 'U1', text: 'hi' });

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Instances the test declares alive. */
const alive = new Set<string>();

/** An instance: a dispatcher answering Slack chats through the real Slack port, on the shared store. */
function instance(runTurn: TurnRunner<void>): { dispatcher: Dispatcher<void>; id: string } {
  const id = `instance-${randomUUID().slice(0, 8)}`;
  alive.add(id);
  const dispatcher = new Dispatcher<void>({
    store,
    runTurn,
    replies: { store, instanceId: id, isAlive: async (other) => alive.has(other) },
    logger: silentLogger(),
    queue: { lease: { ttlMs: 400, heartbeatMs: 100 }, sweepMs: 50, answers: () => true },
  });
  dispatcher.addPort('slack', slackPort(api, adapterState(store), silentLogger()));
  stops.push(() => dispatcher.stop(100));
  return { dispatcher, id };
}

describe('a turn re-run after a crash', () => {
  it('answers in the message the first run started, leaving no stale Stop button or "Working on it" behind', async () => {
    const threadTs = '1700000000.000100';
    const port = slackPort(api, adapterState(store), silentLogger());
    // The first run starts its message, then its instance dies before answering.
    port.sinkFor(messageIn(threadTs), 'turn-1');
    await slack.waitFor(() => slack.thread(CHANNEL, threadTs)[0], { what: 'the turn message' });
    await until(async () => (await store.get('chats', 'slack-placeholder:turn-1')) !== undefined, 'the message to be remembered');
    // The re-run (another instance, same turn id) answers.
    await port.sinkFor(messageIn(threadTs), 'turn-1').reply('the answer');
    const posted = slack.thread(CHANNEL, threadTs);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toBe('the answer');
    expect(posted[0]?.blocks).toBeUndefined();
  });

  it('writes its answer into the stream a dead first run left mid-answer: one message, never deleted', async () => {
    const threadTs = '1700000000.000200';
    const port = slackPort(api, adapterState(store), silentLogger());
    // The first run streams half its answer, then its instance dies.
    port.sinkFor(messageIn(threadTs), 'turn-2').partial?.('the half');
    const half = await slack.waitFor(() => slack.thread(CHANNEL, threadTs).find((posted) => posted.text === 'the half'), { what: 'the half-streamed answer' });
    await until(async () => (await store.get('chats', 'slack-placeholder:turn-2')) === half.ts, 'the stream to be remembered');
    const deletes = slack.calls.filter((call) => call.method === 'chat.delete').length;
    // The re-run streams the whole answer and finishes.
    const rerun = port.sinkFor(messageIn(threadTs), 'turn-2');
    rerun.partial?.('the whole answer');
    await rerun.reply('the whole answer');
    expect(slack.thread(CHANNEL, threadTs).map((posted) => posted.text)).toEqual(['the whole answer']);
    expect(slack.thread(CHANNEL, threadTs)[0]?.ts).toBe(half.ts);
    expect(slack.calls.filter((call) => call.method === 'chat.startStream' && call.params.thread_ts === threadTs)).toHaveLength(1);
    expect(slack.calls.filter((call) => call.method === 'chat.postMessage' && call.params.thread_ts === threadTs)).toHaveLength(0);
    expect(slack.calls.filter((call) => call.method === 'chat.delete').length).toBe(deletes);
  });

  it('finds the message a dead first run posted but never got to remember, and answers in it', async () => {
    const threadTs = '1700000000.000260';
    // The first run says it is posting its message, posts it (streaming refused there), and dies before keeping its ts.
    await store.set('chats', 'slack-placeholder:turn-5', 'starting');
    const orphan = await api.post({ channel: CHANNEL, threadTs, text: PLACEHOLDER, blocks: progressBlocks(PLACEHOLDER, 'turn-5') });
    const rerun = slackPort(api, adapterState(store), silentLogger()).sinkFor(messageIn(threadTs), 'turn-5');
    await rerun.reply('the answer');
    expect(slack.thread(CHANNEL, threadTs).map((posted) => [posted.ts, posted.text])).toEqual([[orphan, 'the answer']]);
  });

  it('finds the stream a dead first run started but never got to remember, and writes into it', async () => {
    const threadTs = '1700000000.000250';
    // The first run says it is starting its stream, starts it, streams a little and dies before keeping its ts.
    await store.set('chats', 'slack-placeholder:turn-4', 'starting');
    const orphan = await api.startStream({
      channel: CHANNEL,
      threadTs,
      chunks: [{ type: 'blocks', blocks: stopControls('turn-4') }, { type: 'markdown_text', text: 'the ha' }],
      recipientTeamId: slack.info.teamId,
      recipientUserId: 'U1',
    });
    const rerun = slackPort(api, adapterState(store), silentLogger()).sinkFor(messageIn(threadTs), 'turn-4');
    rerun.partial?.('the whole answer');
    await rerun.reply('the whole answer');
    expect(slack.thread(CHANNEL, threadTs).map((posted) => [posted.ts, posted.text])).toEqual([[orphan, 'the whole answer']]);
  });

  it('shows nothing when the first run had answered before its instance died: the answer is not put back to "Working on it…"', async () => {
    const threadTs = '1700000000.000300';
    const never = new Promise<void>(() => undefined);
    // A answers (its reply done: shown and recorded as replied), then dies before the message leaves the inbox.
    let answered!: () => void;
    const aAnswered = new Promise<void>((resolve) => (answered = resolve));
    const a = instance(async (_message, sink) => {
      await sink.reply('the answer');
      answered();
      await never;
    });
    a.dispatcher.start();
    expect(await a.dispatcher.accept(messageIn(threadTs), [`rerun-${threadTs}`])).toBe('queued');
    await aAnswered;
    expect(slack.thread(CHANNEL, threadTs).map((posted) => posted.text)).toEqual(['the answer']);
    alive.delete(a.id);
    let reruns = 0;
    const b = instance(async (_message, sink) => {
      reruns += 1;
      await sink.reply('the answer again');
    });
    b.dispatcher.start();
    await until(async () => (await store.inboxSize()) === 0, 'B to take the message over');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const thread = slack.thread(CHANNEL, threadTs);
    expect(thread.map((posted) => posted.text)).toEqual(['the answer']);
    // Never shown as working again after the answer, and the turn did not run again.
    const versions = [...(thread[0]?.edits ?? []).map((edit) => edit.text), thread[0]?.text];
    expect(versions.slice(versions.indexOf('the answer'))).not.toContain(PLACEHOLDER);
    expect(reruns).toBe(0);
  });
});
