// The one entry for messages, as the terminal uses it: `submit` queues a message durably and resolves with its
// turn's outcome, the answer going to the sink the platform port makes for the chat.
import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dispatcher, type TurnRunner } from '../../src/chats/dispatcher.ts';
import { Inbox } from '../../src/chats/inbox.ts';
import { silentLogger } from '../../src/ops/log.ts';
import type { IncomingMessage, PlatformPort } from '../../src/platform/port.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

const FAST = { lease: { ttlMs: 400, heartbeatMs: 100 }, sweepMs: 50 };
const message = (chat: string, text: string): IncomingMessage => ({ worldId: 'terminal:local', chatId: `terminal:local/${chat}`, userId: 'U', text });

/** A promise the test settles by hand, so order is decided by the test, not by timers. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

let dir: string;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-dispatch-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function open(url: string): Promise<Store> {
  const store = await createStore(url);
  cleanups.push(() => store.close());
  return store;
}

/** Instances the tests declare alive. */
const alive = new Set<string>();

/** A dispatcher whose turns answer "<instance> answers <text>" through the port's sink, and return that text. */
function dispatcher(store: Store, run?: TurnRunner<string>): { dispatcher: Dispatcher<string>; instanceId: string } {
  const instanceId = `instance-${randomUUID().slice(0, 8)}`;
  alive.add(instanceId);
  const answer: TurnRunner<string> = async (incoming, sink) => {
    const text = `${instanceId} answers ${incoming.text}`;
    await sink.reply(text);
    return text;
  };
  const made = new Dispatcher<string>({
    store,
    runTurn: run ?? answer,
    replies: { store, instanceId, isAlive: async (id) => alive.has(id) },
    logger: silentLogger(),
    queue: FAST,
  });
  cleanups.push(() => made.stop(1000));
  return { dispatcher: made, instanceId };
}

/** A terminal port showing `chatIds`: what each chat was told, in order. */
function terminalPort(chatIds?: string[]): { port: PlatformPort; screen: Map<string, string[]> } {
  const screen = new Map<string, string[]>();
  const port: PlatformPort = {
    ...(chatIds ? { answers: (chatId: string) => chatIds.includes(chatId) } : {}),
    sinkFor: (incoming) => ({
      progress() {},
      async reply(markdown) {
        screen.set(incoming.chatId, [...(screen.get(incoming.chatId) ?? []), markdown]);
      },
    }),
  };
  return { port, screen };
}

describe('submitting a message and waiting for its turn', () => {
  it("resolves with the outcome of the caller's own turn, in the chat's order, the answers reaching the port's sink", async () => {
    const { dispatcher: d, instanceId } = dispatcher(await open('memory://'));
    const { port, screen } = terminalPort();
    d.addPort('terminal', port);
    const outcomes = await Promise.all(['1', '2', '3'].map((text) => d.submit(message('a', text))));
    expect(outcomes).toEqual(['1', '2', '3'].map((text) => `${instanceId} answers ${text}`));
    expect(screen.get('terminal:local/a')).toEqual(outcomes);
  });

  it('runs different chats at the same time', { timeout: 5_000 }, async () => {
    const events: string[] = [];
    const aMayFinish = gate();
    // A's turn cannot end until B's has started: were chats serialised, this would never settle.
    const { dispatcher: d } = dispatcher(await open('memory://'), async (incoming) => {
      events.push(`${incoming.text} start`);
      if (incoming.text === 'a') await aMayFinish.opened;
      else aMayFinish.open();
      events.push(`${incoming.text} end`);
      return incoming.text;
    });
    d.addPort('terminal', terminalPort().port);
    const a = d.submit(message('a', 'a'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await Promise.all([a, d.submit(message('b', 'b'))])).toEqual(['a', 'b']);
    expect(events).toEqual(['a start', 'b start', 'b end', 'a end']);
  });

  it('keeps a message whose turn broke on our side and answers it at the next sweep, then the ones behind it', async () => {
    let failures = 1;
    const { dispatcher: d } = dispatcher(await open('memory://'), async (incoming) => {
      if (incoming.text === 'first' && failures-- > 0) throw new Error('the platform refused the post');
      return incoming.text;
    });
    d.addPort('terminal', terminalPort().port);
    d.start();
    expect(await Promise.all([d.submit(message('a', 'first')), d.submit(message('a', 'second'))])).toEqual(['first', 'second']);
  });

  it('leaves each terminal session its own chat: two processes on one store answer only what they show', async () => {
    const url = `sqlite://${join(dir, 'shared.sqlite')}`;
    const one = dispatcher(await open(url));
    const two = dispatcher(await open(url));
    const shown = { one: terminalPort(['terminal:local/one']), two: terminalPort(['terminal:local/two']) };
    one.dispatcher.addPort('terminal', shown.one.port);
    two.dispatcher.addPort('terminal', shown.two.port);
    one.dispatcher.start();
    two.dispatcher.start();
    // A message of a session that is gone (a killed process): neither takes it.
    await new Inbox(await open(url)).accept(message('gone', 'left over'), []);
    for (let i = 0; i < 5; i++) {
      expect(await one.dispatcher.submit(message('one', String(i)))).toBe(`${one.instanceId} answers ${i}`);
      expect(await two.dispatcher.submit(message('two', String(i)))).toBe(`${two.instanceId} answers ${i}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(shown.one.screen.get('terminal:local/one')).toHaveLength(5);
    expect(shown.two.screen.get('terminal:local/two')).toHaveLength(5);
    expect([...shown.one.screen.keys(), ...shown.two.screen.keys()]).not.toContain('terminal:local/gone');
    expect((await one.dispatcher.backlog()).waiting).toBe(1);
  });

  it('tells the submitter when the dispatcher stops before its turn ran here', async () => {
    const store = await open('memory://');
    const { dispatcher: d } = dispatcher(store);
    d.addPort('terminal', terminalPort().port);
    // The chat is busy on another instance that is alive: the message waits for it.
    alive.add('busy-instance');
    await store.claim('leases', 'chat:terminal:local/a', { status: 'its-token', at: Date.now(), instanceId: 'busy-instance' }, 3_600_000);
    const waiting = d.submit(message('a', 'never here'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await d.stop(100);
    await expect(waiting).rejects.toThrow('stopped before this message was answered');
  });
});
