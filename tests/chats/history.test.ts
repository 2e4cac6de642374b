import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsage } from '../../src/chats/usage.ts';
import { createHistory, estimateTokens, type History } from '../../src/chats/history.ts';
import { chatId, slackWorldId, TERMINAL_WORLD_ID } from '../../src/chats/ids.ts';
import { createStore } from '../../src/store/createStore.ts';
import type { Store } from '../../src/store/types.ts';

const chat = chatId(slackWorldId('T1', 'C1'), '1712345678.000100');

function user(text: string): MessageParam {
  return { role: 'user', content: text };
}
function assistant(text: string): MessageParam {
  return { role: 'assistant', content: [{ type: 'text', text }] };
}
/** A turn where the model ran a tool: user, assistant tool_use, user tool_result, assistant answer. */
function toolTurn(id: string, padding = ''): MessageParam[] {
  return [
    user(`run the report ${padding}`),
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'run_skill_script', input: { script: 'report.sh' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `report output ${padding}` }] },
    assistant('Here is the report.'),
  ];
}

/** What the Messages API requires: starts with the user, roles alternate, every tool_use answered next message. */
function expectValidConversation(messages: MessageParam[]): void {
  expect(messages[0]?.role).toBe('user');
  messages.forEach((message, index) => {
    if (index > 0) expect(message.role).not.toBe(messages[index - 1]?.role);
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const next = messages[index + 1];
      const answered =
        next !== undefined &&
        typeof next.content !== 'string' &&
        next.content.some((result) => result.type === 'tool_result' && result.tool_use_id === block.id);
      expect(answered, `tool_use ${block.id} has its tool_result`).toBe(true);
    }
  });
}

/** One turn's read and write, as the engine does them. */
const append = async (history: History, chat: string, turnId: string, messages: MessageParam[], usage = emptyUsage()) =>
  (await history.open(chat)).appendTurn(turnId, messages, usage);
const load = async (history: History, chat: string) => (await history.open(chat)).messages;

describe('chat history', () => {
  let store: Store;
  beforeEach(async () => {
    store = await createStore('memory://');
  });
  afterEach(async () => {
    await store.close();
  });

  it('returns the turns of a chat in order, and nothing for another chat or after clear', async () => {
    const history = createHistory(store);
    await append(history, chat, 't1', [user('hello'), assistant('hi!')]);
    await append(history, chat, 't2', toolTurn('toolu_1'));
    const messages = await load(history, chat);
    expect(messages).toEqual([user('hello'), assistant('hi!'), ...toolTurn('toolu_1')]);
    expectValidConversation(messages);
    expect(await load(history, chatId(TERMINAL_WORLD_ID, 'other'))).toEqual([]);
    await history.clear(chat);
    expect(await load(history, chat)).toEqual([]);
  });

  it('drops the oldest turns whole to stay within the budget, never splitting a tool_use from its result', async () => {
    const padding = 'x'.repeat(400);
    const turnCost = estimateTokens(toolTurn('toolu_0', padding));
    const history = createHistory(store, { budgetTokens: turnCost * 3 + 10 });
    for (let index = 0; index < 6; index++) await append(history, chat, `t${index}`, toolTurn(`toolu_${index}`, padding));
    const messages = await load(history, chat);
    expect(messages).toEqual([3, 4, 5].flatMap((index) => toolTurn(`toolu_${index}`, padding)));
    expectValidConversation(messages);
    // What is stored is bounded too, not just what is loaded.
    const stored = await store.get<{ turns: Array<{ turnId: string }> }>('history', chat);
    expect(stored?.turns.map((turn) => turn.turnId)).toEqual(['t3', 't4', 't5']);
  });

  it('keeps the newest turn even when it alone is over the budget', async () => {
    const history = createHistory(store, { budgetTokens: 50 });
    await append(history, chat, 't1', [user('short'), assistant('short')]);
    const huge = toolTurn('toolu_big', 'y'.repeat(4_000));
    await append(history, chat, 't2', huge);
    expect(await load(history, chat)).toEqual(huge);
  });

  it('keeps a message that got no answer, and merges it with the next one so no two user messages follow', async () => {
    const history = createHistory(store);
    await append(history, chat, 't1', [user('hello'), assistant('hi!')]);
    await append(history, chat, 't2', [user('are you there?')]);
    expect(await load(history, chat)).toEqual([user('hello'), assistant('hi!'), user('are you there?')]);
    await append(history, chat, 't3', [user('hello again'), assistant('Yes, sorry.')]);
    const messages = await load(history, chat);
    expect(messages).toEqual([
      user('hello'),
      assistant('hi!'),
      {
        role: 'user',
        content: [
          { type: 'text', text: 'are you there?' },
          { type: 'text', text: 'hello again' },
        ],
      },
      assistant('Yes, sorry.'),
    ]);
    expectValidConversation(messages);
  });

  it('after a turn cut at the tool limit (ending on a tool_result), the next message joins it, results first', async () => {
    const history = createHistory(store);
    await append(history, chat, 't1', toolTurn('toolu_cap').slice(0, 3));
    await append(history, chat, 't2', [user('go on'), assistant('Done.')]);
    const messages = await load(history, chat);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_cap', content: 'report output ' },
        { type: 'text', text: 'go on' },
      ],
    });
    expectValidConversation(messages);
  });

  it('replaces a turn recorded again under the same id, in place', async () => {
    const history = createHistory(store);
    await append(history, chat, 't1', [user('first')]);
    await append(history, chat, 't2', [user('second'), assistant('answer two')]);
    await append(history, chat, 't1', [user('first'), assistant('answer one')]);
    expect(await load(history, chat)).toEqual([user('first'), assistant('answer one'), user('second'), assistant('answer two')]);
  });

  it('refuses a bad chat id, a turn not opened by the user, and a stored history of the wrong shape', async () => {
    const history = createHistory(store);
    await expect(load(history, 'not-a-chat')).rejects.toThrow(/chat id "not-a-chat" is not valid/);
    await expect(append(history, chat, 't1', [assistant('me first')])).rejects.toThrow(/must start with the user's message/);
    await expect(append(history, chat, 't1', [])).rejects.toThrow(/must start with the user's message/);
    await store.set('history', chat, { turns: 'garbage' });
    await expect(load(history, chat)).rejects.toThrow(/stored history of chat .* is not in the expected shape/);
    // A new conversation clears it, and the chat works again.
    await history.clear(chat);
    expect(await load(history, chat)).toEqual([]);
  });

  it("keeps the chat's token totals in the same record, across turns and a new conversation", async () => {
    const history = createHistory(store);
    const spent = { input: 10, output: 5, cacheRead: 100, cacheCreation: 0, turns: 1 };
    await append(history, chat, 't1', [user('hello'), assistant('hi!')], spent);
    await append(history, chat, 't2', [user('again'), assistant('yes')], spent);
    expect(await history.usage(chat)).toEqual({ input: 20, output: 10, cacheRead: 200, cacheCreation: 0, turns: 2 });
    await history.clear(chat);
    expect(await load(history, chat)).toEqual([]);
    expect(await history.usage(chat)).toEqual({ input: 20, output: 10, cacheRead: 200, cacheCreation: 0, turns: 2 });
    // A chat recorded before the totals moved into its history record still shows them.
    const older = chatId(TERMINAL_WORLD_ID, 'older');
    await store.set('history', older, { turns: [{ turnId: 't1', messages: [user('hello')] }] });
    await store.set('usage', older, spent);
    expect(await history.usage(older)).toEqual(spent);
  });
});

describe('chat history on sqlite', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'skillbot-history-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('survives a restart', async () => {
    const url = `sqlite://${path.join(dir, 'bot.sqlite')}`;
    const before = await createStore(url);
    await append(createHistory(before), chat, 't1', toolTurn('toolu_1'));
    await append(createHistory(before), chat, 't2', [user('unanswered')]);
    await before.close();
    const after = await createStore(url);
    try {
      expect(await load(createHistory(after), chat)).toEqual([...toolTurn('toolu_1'), user('unanswered')]);
    } finally {
      await after.close();
    }
  });
});
