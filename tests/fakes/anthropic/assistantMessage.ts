import type { BrainReply, StopReason } from './brain.ts';
import type { InputUsage } from './promptCache.ts';
import { canonicalJson, estimateTokens } from './tokenEstimate.ts';

/** The `usage` object the fake reports, as the API does in a Message and in message_start. */
export interface FakeUsage extends InputUsage {
  output_tokens: number;
  server_tool_use: null;
  output_tokens_details: null;
  service_tier: 'standard';
  inference_geo: string;
  speed: 'standard';
}

export type AssistantBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'tool_use'; id: string; name: string; input: unknown; caller: { type: 'direct' } };

/** The Message object of the API (what a non-streaming request returns and message_start announces). */
export interface AssistantMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AssistantBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  stop_details: null;
  container: null;
  diagnostics: null;
  usage: FakeUsage;
}

/**
 * Turns a brain's reply into the API's Message: ids assigned (`msg_fake_<seq>`, `toolu_fake_<seq>_<block>`
 * unless the brain chose one), stop_reason defaulted, output tokens estimated like input tokens.
 */
export function buildAssistantMessage(reply: BrainReply, seq: number, model: string, input: InputUsage): AssistantMessage {
  const content = reply.content.map((block, index): AssistantBlock => block.type === 'text'
    ? { type: 'text', text: block.text, citations: null }
    : { type: 'tool_use', id: block.id ?? `toolu_fake_${seq}_${index}`, name: block.name, input: block.input, caller: { type: 'direct' } });
  const stopReason = reply.stop_reason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    id: `msg_fake_${seq}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      ...input,
      output_tokens: content.length === 0 ? 0 : estimateTokens(canonicalJson(content)),
      server_tool_use: null,
      output_tokens_details: null,
      service_tier: 'standard',
      inference_geo: 'not_available',
      speed: 'standard',
    },
  };
}
