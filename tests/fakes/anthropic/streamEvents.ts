import type { AssistantBlock, AssistantMessage } from './assistantMessage.ts';

/** One server-sent event: the `event:` name and the JSON of its `data:` line. */
export interface SseEvent {
  event: string;
  data: unknown;
}

export function encodeSse({ event, data }: SseEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

// Split by code points so that no delta carries half of a surrogate pair.
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let start = 0; start < chars.length; start += size) out.push(chars.slice(start, start + size).join(''));
  return out;
}

function blockStart(block: AssistantBlock): AssistantBlock | Record<string, unknown> {
  return block.type === 'text'
    ? { type: 'text', text: '' }
    : { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: block.caller };
}

function blockDeltas(block: AssistantBlock, index: number): SseEvent[] {
  const delta = (value: object): SseEvent => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: value } });
  if (block.type === 'text') return pieces(block.text, 12).map((text) => delta({ type: 'text_delta', text }));
  // As the API does: an empty first fragment, then the JSON in several arbitrary slices.
  const json = JSON.stringify(block.input ?? {});
  const size = Math.max(1, Math.ceil(json.length / 4));
  return ['', ...pieces(json, size)].map((partial_json) => delta({ type: 'input_json_delta', partial_json }));
}

/** message_start with empty content: the stream's opening, shared by whole and broken streams. */
export function messageStartEvent(message: AssistantMessage): SseEvent {
  return {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) } },
    },
  };
}

/** The named events the API streams for a message, in the API's order (a ping after the first block start). */
export function streamEvents(message: AssistantMessage): SseEvent[] {
  const events: SseEvent[] = [messageStartEvent(message)];
  message.content.forEach((block, index) => {
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: blockStart(block) } });
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    events.push(...blockDeltas(block, index));
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  if (message.content.length === 0) events.push({ event: 'ping', data: { type: 'ping' } });
  const { usage } = message;
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
        server_tool_use: null,
        output_tokens_details: null,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}
