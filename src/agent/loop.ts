import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam, TextBlockParam, ToolResultBlockParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import { joinUserMessages } from '../chats/history.ts';
import type { ToolSet } from '../tools/contract.ts';
import { DEFAULT_RETRY, ModelCallAborted, type RetryPolicy, streamMessage } from './modelCall.ts';
import { addApiUsage, emptyUsage, type UsageTotals } from '../chats/usage.ts';

export interface LoopCallbacks {
  onText?: (delta: string) => void;
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
  onTool?: (name: string, input: unknown) => void;
}

export interface LoopInput {
  client: Anthropic;
  model: string;
  maxTokens: number;
  system: string;
  /**
   * The turn's tools, their definitions asked before each request (a person who connected an MCP server mid-turn
   * gets its tools for the rest of the turn: the one change, so the cache misses once).
   */
  tools: ToolSet;
  /** The chat's earlier messages (a valid alternation ending with an assistant message, or empty). */
  history: MessageParam[];
  /** This turn's opening messages: the user's message, possibly followed by runtime-made tool exchanges. */
  opening: MessageParam[];
  maxToolRounds: number;
  callbacks?: LoopCallbacks;
  retry?: RetryPolicy;
  /** Aborted when a person stops the turn: the model stream ends, and no further round starts. */
  signal?: AbortSignal;
}

export type LoopResult =
  | { ok: true; reply: string; messages: MessageParam[]; usage: UsageTotals; rounds: number; capped: boolean; modelMs: number }
  /** The model failed; `messages` holds what the turn produced before that (at least the user's message). */
  | { ok: false; error: Error; messages: MessageParam[]; usage: UsageTotals; rounds: number; modelMs: number }
  /** A person stopped the turn; `messages` holds what it produced before that. */
  | { ok: false; stopped: true; messages: MessageParam[]; usage: UsageTotals; rounds: number; modelMs: number };

/** Marks the last block of the last message as a cache breakpoint (on a copy: history stays clean). */
function withCacheBreakpoint(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (!last) return messages;
  const blocks: ContentBlockParam[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
  const tail = blocks.at(-1);
  if (!tail || tail.type === 'thinking' || tail.type === 'redacted_thinking') return messages;
  blocks[blocks.length - 1] = { ...tail, cache_control: { type: 'ephemeral' } } as ContentBlockParam;
  return [...messages.slice(0, -1), { ...last, content: blocks } as MessageParam];
}

const capMessage = (rounds: number) =>
  `I stopped after ${rounds} tool calls in this turn (the per-turn limit). Tell me how to continue, or narrow the request.`;

/**
 * The Claude tool loop for one turn: call the model, run the tools it asks for, feed the results back, until it
 * stops asking or the per-turn cap is hit. The system prompt and tools go first and unchanged, so every request
 * of every turn shares one cached prefix (the one exception: an MCP server a person connects mid-turn adds its tools).
 */
export async function runLoop(input: LoopInput): Promise<LoopResult> {
  const system: TextBlockParam[] = [{ type: 'text', text: input.system, cache_control: { type: 'ephemeral' } }];
  const turn: MessageParam[] = [...input.opening];
  const usage = emptyUsage();
  let rounds = 0;
  // Time spent waiting on the model (retries and backoff included), so the rest is the core's own overhead.
  let modelMs = 0;
  const stopped = () => ({ ok: false as const, stopped: true as const, messages: turn, usage, rounds, modelMs });
  for (;;) {
    if (input.signal?.aborted) return stopped();
    let message;
    const callStarted = performance.now();
    try {
      message = await streamMessage(
        input.client,
        {
          model: input.model,
          max_tokens: input.maxTokens,
          system,
          tools: input.tools.definitions(),
          messages: withCacheBreakpoint(joinUserMessages([...input.history, ...turn])),
        },
        { onText: input.callbacks?.onText, onRetry: input.callbacks?.onRetry },
        input.retry ?? DEFAULT_RETRY,
        input.signal,
      );
    } catch (error) {
      if (error instanceof ModelCallAborted) {
        modelMs += performance.now() - callStarted;
        return stopped();
      }
      return { ok: false, error: error as Error, messages: turn, usage, rounds, modelMs: modelMs + performance.now() - callStarted };
    }
    modelMs += performance.now() - callStarted;
    addApiUsage(usage, message.usage);
    const content = message.content.filter((block) => block.type !== 'text' || block.text !== '');
    if (content.length > 0) turn.push({ role: 'assistant', content: content as ContentBlockParam[] });
    const toolUses = message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    const text = message.content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('')
      .trim();
    if (toolUses.length === 0) {
      return { ok: true, reply: text, messages: turn, usage, rounds, capped: false, modelMs };
    }
    const results: ToolResultBlockParam[] = [];
    for (const use of toolUses) {
      // Every tool_use needs its result: a stopped turn answers the rest without running them.
      if (input.signal?.aborted) {
        results.push({ type: 'tool_result', tool_use_id: use.id, content: 'Not run: the person stopped the turn.', is_error: true });
        continue;
      }
      rounds++;
      input.callbacks?.onTool?.(use.name, use.input);
      const outcome = await input.tools.run(use.name, use.input);
      results.push({ type: 'tool_result', tool_use_id: use.id, content: outcome.blocks ?? outcome.content, is_error: outcome.isError });
    }
    turn.push({ role: 'user', content: results });
    if (rounds >= input.maxToolRounds) {
      return { ok: true, reply: [text, capMessage(rounds)].filter(Boolean).join('\n\n'), messages: turn, usage, rounds, capped: true, modelMs };
    }
  }
}
