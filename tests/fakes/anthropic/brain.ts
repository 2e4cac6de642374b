import type { MessagesRequest, RequestMessage, RequestTool } from './requestSchema.ts';
import { messageBlocks } from './requestSchema.ts';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string };

/** What the scripted model answers. stop_reason defaults to tool_use when a tool_use is present, else end_turn. */
export interface BrainReply {
  content: ReplyBlock[];
  stop_reason?: StopReason;
  /** Stream this reply's events this far apart (over the fake's own `chunkDelayMs`): a reply being written slowly. */
  chunkDelayMs?: number;
}

/** What a brain is asked: the validated request, plus its place among the requests that reached a brain. */
export interface BrainRequest {
  /** 0-based count of earlier requests answered by a brain (faulted and refused requests do not count). */
  index: number;
  model: string;
  system: MessagesRequest['system'];
  messages: RequestMessage[];
  tools: RequestTool[];
  body: MessagesRequest;
  headers: Readonly<Record<string, string>>;
}

export type Brain = (req: BrainRequest) => BrainReply | Promise<BrainReply>;

export function textReply(text: string): BrainReply {
  return { content: [{ type: 'text', text }] };
}

export function toolUseReply(name: string, input: unknown, options: { id?: string; text?: string } = {}): BrainReply {
  const toolUse: ReplyBlock = { type: 'tool_use', name, input, ...(options.id ? { id: options.id } : {}) };
  return { content: options.text ? [{ type: 'text', text: options.text }, toolUse] : [toolUse] };
}

/**
 * One reply per request, in order; an entry may be a brain of its own (to look at the request).
 * Asking for more replies than scripted fails that request with a non-retryable 500 naming the index.
 */
export function scripted(replies: ReadonlyArray<BrainReply | Brain>): Brain {
  return (req) => {
    const reply = replies[req.index];
    if (reply === undefined) {
      throw new Error(`scripted brain has ${replies.length} replies; request #${req.index} asked for one more`);
    }
    return typeof reply === 'function' ? reply(req) : reply;
  };
}

/** Answers with the text of the last user message ("" when it has none). */
export const echoBrain: Brain = (req) => textReply(lastUserText(req) ?? '');

function lastUserMessage(req: { messages: RequestMessage[] }): RequestMessage | undefined {
  return req.messages.findLast((message) => message.role === 'user');
}

/** The text blocks of the last user message, joined by newlines; undefined when it holds no text. */
export function lastUserText(req: { messages: RequestMessage[] }): string | undefined {
  const message = lastUserMessage(req);
  if (!message) return undefined;
  const texts = messageBlocks(message).flatMap((block) => (block.type === 'text' ? [String(block.text)] : []));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

export interface ToolResultView {
  toolUseId: string;
  /** The result's text (text blocks joined by newlines). */
  content: string;
  isError: boolean;
}

/** The last tool_result block of the last user message, if any. */
export function lastToolResult(req: { messages: RequestMessage[] }): ToolResultView | undefined {
  const message = lastUserMessage(req);
  const block = message ? messageBlocks(message).findLast((candidate) => candidate.type === 'tool_result') : undefined;
  if (!block) return undefined;
  const content = block.content;
  const text = typeof content === 'string' ? content
    : Array.isArray(content) ? content.flatMap((part: { type?: unknown; text?: unknown }) =>
      part.type === 'text' && typeof part.text === 'string' ? [part.text] : []).join('\n')
    : '';
  return { toolUseId: String(block.tool_use_id), content: text, isError: block.is_error === true };
}

/** Tool rounds of the current turn so far: assistant messages since the person's last words. */
export function roundOf(req: { messages: RequestMessage[] }): number {
  const start = req.messages.findLastIndex((message) => message.role === 'user' && messageBlocks(message).some((block) => block.type === 'text'));
  return req.messages.slice(start + 1).filter((message) => message.role === 'assistant').length;
}

/**
 * A model that works through `steps`, one per round of the turn (as Claude says a sentence, then calls the next
 * tool), and keeps every tool result it reads in `seen`; past the last step it says so.
 */
export function stepsBrain(steps: ReadonlyArray<BrainReply | Brain>, seen: string[]): Brain {
  return (req) => {
    const result = lastToolResult(req);
    if (result !== undefined && roundOf(req) > 0) seen.push(result.content);
    const step = steps[roundOf(req)];
    if (step === undefined) return textReply('(no more steps)');
    return typeof step === 'function' ? step(req) : step;
  };
}
