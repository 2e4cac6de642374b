import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import type { Store } from '../store/types.ts';
import { parseChatId } from './ids.ts';

/** One turn as history keeps it: trimming drops whole turns, so a tool_use never loses its tool_result. */
export interface HistoryTurn {
  turnId: string;
  messages: MessageParam[];
}

export interface History {
  /** The chat's messages, oldest first, within the budget, with no two user messages in a row. */
  load(chatId: string): Promise<MessageParam[]>;
  /**
   * Records a turn: its messages start with the user's message; they may end there (no answer came). Appending a
   * turnId already kept replaces that turn. The oldest turns are dropped, whole, to stay within the budget.
   */
  appendTurn(chatId: string, turnId: string, messages: MessageParam[]): Promise<void>;
  clear(chatId: string): Promise<void>;
}

export const DEFAULT_HISTORY_BUDGET_TOKENS = 60_000;

// Checked where stored data comes back in: the shape trimming relies on, not every block field.
const storedHistory = z.object({
  turns: z.array(
    z.object({
      turnId: z.string(),
      messages: z.array(
        z.object({
          role: z.enum(['user', 'assistant']),
          content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
        }),
      ),
    }),
  ),
});

/** A cheap token estimate: four characters of JSON per token. Good enough to bound a prompt, never exact. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

/** The newest turns whose estimate fits `budgetTokens`; the newest turn always, even alone over budget. */
export function trimTurns(turns: HistoryTurn[], budgetTokens: number): HistoryTurn[] {
  let used = 0;
  let first = turns.length;
  for (const turn of [...turns].reverse()) {
    const cost = estimateTokens(turn.messages);
    if (first < turns.length && used + cost > budgetTokens) break;
    used += cost;
    first--;
  }
  return turns.slice(first);
}

function blocks(content: MessageParam['content']): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as ContentBlockParam[]);
}

/**
 * Merges consecutive user messages into one (content blocks concatenated, in order), so the API sees a
 * valid alternation after a turn that ended on the user's side (no answer, or a tool result at the tool cap).
 * Tool results stay first in the merged message, as the API requires.
 */
export function joinUserMessages(messages: MessageParam[]): MessageParam[] {
  const joined: MessageParam[] = [];
  for (const message of messages) {
    const previous = joined.at(-1);
    if (previous?.role === 'user' && message.role === 'user') {
      joined[joined.length - 1] = { role: 'user', content: [...blocks(previous.content), ...blocks(message.content)] };
    } else {
      joined.push(message);
    }
  }
  return joined;
}

export function createHistory(store: Store, opts: { budgetTokens?: number } = {}): History {
  const budgetTokens = opts.budgetTokens ?? DEFAULT_HISTORY_BUDGET_TOKENS;
  if (!Number.isFinite(budgetTokens) || budgetTokens <= 0) throw new RangeError('budgetTokens must be a positive number');

  async function loadTurns(chatId: string): Promise<HistoryTurn[]> {
    parseChatId(chatId);
    const stored = await store.get('history', chatId);
    if (stored === undefined) return [];
    const parsed = storedHistory.safeParse(stored);
    if (!parsed.success) throw new Error(`the stored history of chat ${chatId} is not in the expected shape: ${parsed.error.message}`);
    return parsed.data.turns as HistoryTurn[];
  }

  return {
    async load(chatId) {
      return joinUserMessages(trimTurns(await loadTurns(chatId), budgetTokens).flatMap((turn) => turn.messages));
    },

    // Only the chat's turn queue writes its history, one turn at a time: a plain read-modify-write is safe.
    async appendTurn(chatId, turnId, messages) {
      if (messages[0]?.role !== 'user') throw new Error(`turn ${turnId} must start with the user's message`);
      const turns = await loadTurns(chatId);
      const kept = turns.findIndex((turn) => turn.turnId === turnId);
      if (kept === -1) turns.push({ turnId, messages });
      else turns[kept] = { turnId, messages };
      await store.set('history', chatId, { turns: trimTurns(turns, budgetTokens) });
    },

    async clear(chatId) {
      parseChatId(chatId);
      await store.delete('history', chatId);
    },
  };
}
