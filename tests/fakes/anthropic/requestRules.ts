import { messageBlocks, type MessagesRequest } from './requestSchema.ts';

/** The API version from which sampling parameters are refused (what @anthropic-ai/sdk 1.x sends). */
export const SAMPLING_FREE_VERSION = '2026-10-21';
const SAMPLING_PARAMS = ['temperature', 'top_p', 'top_k'] as const;
const MAX_CACHE_BREAKPOINTS = 4;

/**
 * The API's own refusals that catch real client bugs, checked after the schema: each returns the
 * message of a 400 invalid_request_error, or undefined when the request is acceptable.
 */
export function ruleViolation(body: MessagesRequest, anthropicVersion: string): string | undefined {
  return samplingViolation(body, anthropicVersion) ?? toolPairingViolation(body) ?? emptyTextViolation(body)
    ?? breakpointViolation(body) ?? toolDefinitionViolation(body);
}

function samplingViolation(body: MessagesRequest, version: string): string | undefined {
  // ISO dates compare correctly as strings.
  if (version < SAMPLING_FREE_VERSION) return undefined;
  const sent = SAMPLING_PARAMS.filter((name) => body[name] !== undefined);
  if (sent.length === 0) return undefined;
  return `${sent.join(', ')}: not supported with anthropic-version ${version}; remove ${sent.length === 1 ? 'it' : 'them'}`;
}

function idsOf(blocks: ReturnType<typeof messageBlocks>, type: 'tool_use' | 'tool_result'): string[] {
  const key = type === 'tool_use' ? 'id' : 'tool_use_id';
  return blocks.filter((block) => block.type === type).map((block) => String(block[key]));
}

// Every tool_use needs its tool_result in the very next user message, results first, and no result may
// answer a tool_use that the previous assistant message did not make.
function toolPairingViolation(body: MessagesRequest): string | undefined {
  let pending: string[] = [];
  for (const [index, message] of body.messages.entries()) {
    const blocks = messageBlocks(message);
    if (message.role === 'user') {
      const results = idsOf(blocks, 'tool_result');
      const unexpected = results.filter((id) => !pending.includes(id));
      if (unexpected.length > 0) {
        return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
      const firstOther = blocks.findIndex((block) => block.type !== 'tool_result');
      const lastResult = blocks.map((block) => block.type).lastIndexOf('tool_result');
      if (firstOther !== -1 && lastResult > firstOther) {
        return `messages.${index}.content: \`tool_result\` blocks must come first in the content, before any other block`;
      }
    }
    const missing = pending.filter((id) => message.role !== 'user' || !idsOf(blocks, 'tool_result').includes(id));
    if (missing.length > 0) {
      return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    pending = message.role === 'assistant' ? idsOf(blocks, 'tool_use') : [];
  }
  if (pending.length > 0) {
    return `messages: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${pending.join(', ')}`;
  }
  return undefined;
}

function emptyTextViolation(body: MessagesRequest): string | undefined {
  for (const [index, message] of body.messages.entries()) {
    if (messageBlocks(message).some((block) => block.type === 'text' && block.text === '')) {
      return `messages.${index}: text content blocks must be non-empty`;
    }
  }
  return undefined;
}

function breakpointViolation(body: MessagesRequest): string | undefined {
  const marked = [
    ...(body.tools ?? []),
    ...(typeof body.system === 'string' ? [] : (body.system ?? [])),
    ...body.messages.flatMap(messageBlocks),
  ].filter((block) => block.cache_control != null).length + (body.cache_control != null ? 1 : 0);
  if (marked <= MAX_CACHE_BREAKPOINTS) return undefined;
  return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked}.`;
}

/** The Anthropic-defined client tools the API knows, by versioned type, with the one name each must have. */
const ANTHROPIC_DEFINED_TOOLS: Readonly<Record<string, string>> = {
  bash_20241022: 'bash',
  bash_20250124: 'bash',
  text_editor_20241022: 'str_replace_editor',
  text_editor_20250124: 'str_replace_editor',
  text_editor_20250429: 'str_replace_based_edit_tool',
  text_editor_20250728: 'str_replace_based_edit_tool',
};

// A versioned tool type the API does not know, or under another name, is refused; a custom tool needs its schema.
function toolDefinitionViolation(body: MessagesRequest): string | undefined {
  for (const [index, tool] of (body.tools ?? []).entries()) {
    const type = (tool as { type?: unknown }).type;
    if (type === undefined || type === 'custom') {
      if (typeof (tool as { input_schema?: unknown }).input_schema !== 'object') return `tools.${index}.custom.input_schema: Field required`;
      continue;
    }
    const name = ANTHROPIC_DEFINED_TOOLS[String(type)];
    if (name === undefined) return `tools.${index}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags`;
    if (tool.name !== name) return `tools.${index}.${String(type)}.name: Input should be '${name}'`;
  }
  return undefined;
}
