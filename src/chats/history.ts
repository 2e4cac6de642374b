import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { emptyUsage, mergeUsage, type UsageTotals } from './usage.ts';
import type { Store } from '../store/types.ts';
import { parseChatId } from './ids.ts';

/** One turn as history keeps it: trimming drops whole turns, so a tool_use never loses its tool_result. */
export interface HistoryTurn {
  turnId: string;
  messages: MessageParam[];
  /** Its token estimate, computed once when it is recorded (a long chat's trim would re-measure every turn). */
  tokens?: number;
}

/** A chat's record as one turn reads it: one store read at the start of the turn, one write at its end. */
export interface OpenedHistory {
  /** The chat's messages, oldest first, within the budget, with no two user messages in a row. */
  messages: MessageParam[];
  /** The chat's running token totals (kept beside its turns: one record, one round trip). */
  usage: UsageTotals;
  /**
   * Records a turn and what it spent: its messages start with the user's message; they may end there (no answer
   * came). Appending a turnId already kept replaces that turn. The oldest turns are dropped, whole, to stay
   * within the budget.
   */
  appendTurn(turnId: string, messages: MessageParam[], usage: UsageTotals): Promise<void>;
}

export interface History {
  /** Reads the chat's record for one turn. Only the chat's turn queue (under its lease) writes it. */
  open(chatId: string): Promise<OpenedHistory>;
  /** The chat's running token totals. */
  usage(chatId: string): Promise<UsageTotals>;
  /** Forgets the chat's messages (`/new`); its token totals stay. */
  clear(chatId: string): Promise<void>;
}

export const DEFAULT_HISTORY_BUDGET_TOKENS = 60_000;

// Checked where stored data comes back in: the shape trimming relies on, not every block field.
const usageTotals = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheCreation: z.number(), turns: z.number() });
const storedHistory = z.object({
  usage: usageTotals.optional(),
  turns: z.array(
    z.object({
      turnId: z.string(),
      tokens: z.number().optional(),
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
    const cost = turn.tokens ?? estimateTokens(turn.messages);
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

  async function read(chatId: string): Promise<{ turns: HistoryTurn[]; usage?: UsageTotals }> {
    parseChatId(chatId);
    const stored = await store.get('history', chatId);
    if (stored === undefined) return { turns: [] };
    const parsed = storedHistory.safeParse(stored);
    if (!parsed.success) throw new Error(`the stored history of chat ${chatId} is not in the expected shape: ${parsed.error.message}`);
    return { turns: parsed.data.turns as HistoryTurn[], ...(parsed.data.usage ? { usage: parsed.data.usage } : {}) };
  }

  // Records written before the totals moved into the history record kept them under 'usage'.
  const usageOf = async (chatId: string, record: { turns: HistoryTurn[]; usage?: UsageTotals }) =>
    record.usage ?? (record.turns.length > 0 ? await store.get<UsageTotals>('usage', chatId) : undefined) ?? emptyUsage();

  return {
    async open(chatId) {
      const record = await read(chatId);
      const usage = await usageOf(chatId, record);
      return {
        messages: joinUserMessages(trimTurns(record.turns, budgetTokens).flatMap((turn) => turn.messages)),
        usage,
        async appendTurn(turnId, messages, spent) {
          if (messages[0]?.role !== 'user') throw new Error(`turn ${turnId} must start with the user's message`);
          const turns = [...record.turns];
          const kept = turns.findIndex((turn) => turn.turnId === turnId);
          const turn = { turnId, messages, tokens: estimateTokens(messages) };
          if (kept === -1) turns.push(turn);
          else turns[kept] = turn;
          await store.set('history', chatId, { turns: trimTurns(turns, budgetTokens), usage: mergeUsage(usage, spent) });
        },
      };
    },

    async usage(chatId) {
      return usageOf(chatId, await read(chatId));
    },

    async clear(chatId) {
      parseChatId(chatId);
      // A record of the wrong shape is the very thing a new conversation gets a person out of: it goes, whole.
      const record = await read(chatId).catch(() => undefined);
      if (record === undefined) return store.delete('history', chatId);
      if (record.turns.length === 0 && record.usage === undefined) return;
      await store.set('history', chatId, { turns: [], usage: await usageOf(chatId, record) });
    },
  };
}
