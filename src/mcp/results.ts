// An MCP tool's result as the model reads it: text, images as image blocks, embedded text resources, resource
// links, structuredContent as JSON text, isError as a tool error; text capped like a script's output, saying how
// much was cut.
import type { ImageBlockParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ToolResult } from '../tools/contract.ts';
import { stripHiddenDeep } from '../text/hidden.ts';

/** Characters of text a result keeps (as a script's output keeps 64 KiB). */
export const MAX_RESULT_CHARS = 64 * 1024;
/** An image larger than this (its base64) is named, not sent. */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

type Block = TextBlockParam | ImageBlockParam;

interface ContentItem {
  type: string;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  description?: unknown;
  resource?: { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function blockOf(item: ContentItem): Block {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: str(item.text) ?? '' };
    case 'image': {
      const data = str(item.data) ?? '';
      const type = str(item.mimeType) ?? '';
      if (IMAGE_TYPES.has(type) && data.length <= MAX_IMAGE_BASE64 && /^[A-Za-z0-9+/=\s]*$/.test(data)) {
        return { type: 'image', source: { type: 'base64', media_type: type as 'image/png', data } };
      }
      return { type: 'text', text: `(an image of type ${type || 'unknown'}, ${data.length} base64 characters, not shown: only PNG, JPEG, GIF and WebP up to 5 MB are)` };
    }
    case 'audio':
      return { type: 'text', text: `(audio of type ${str(item.mimeType) ?? 'unknown'}, not shown)` };
    case 'resource': {
      const resource = item.resource ?? {};
      const head = `Resource ${str(resource.uri) ?? '?'}${str(resource.mimeType) ? ` (${str(resource.mimeType)})` : ''}`;
      const text = str(resource.text);
      return { type: 'text', text: text === undefined ? `${head}: binary, ${(str(resource.blob) ?? '').length} base64 characters, not shown` : `${head}:\n${text}` };
    }
    case 'resource_link': {
      const parts = [str(item.name), str(item.uri) && `<${str(item.uri)}>`, str(item.mimeType) && `(${str(item.mimeType)})`, str(item.description) && `: ${str(item.description)}`];
      return { type: 'text', text: `Resource link: ${parts.filter(Boolean).join(' ')}` };
    }
    default:
      return { type: 'text', text: `(content of type ${String(item.type).slice(0, 40)}, not shown)` };
  }
}

/** Keeps text up to the bound across the blocks, and says how much was cut. */
function capped(blocks: Block[]): { blocks: Block[]; dropped: number } {
  let room = MAX_RESULT_CHARS;
  let dropped = 0;
  const kept: Block[] = [];
  for (const block of blocks) {
    if (block.type !== 'text') {
      kept.push(block);
      continue;
    }
    if (room <= 0) {
      dropped += block.text.length;
      continue;
    }
    if (block.text.length > room) {
      dropped += block.text.length - room;
      kept.push({ type: 'text', text: block.text.slice(0, room) });
      room = 0;
      continue;
    }
    room -= block.text.length;
    kept.push(block);
  }
  return { blocks: kept, dropped };
}

/**
 * The result as the model reads it, without the hidden characters its strings held (text.hidden.ts), and how many
 * were removed (for the log).
 */
export function cleanOutcome(result: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown }): { outcome: ToolResult; hiddenRemoved: number } {
  const { value, removed } = stripHiddenDeep({ content: result.content, structuredContent: result.structuredContent, toolResult: result.toolResult });
  return { outcome: outcomeOfResult({ ...value, isError: result.isError }), hiddenRemoved: removed };
}

/** The result of `tools/call` (already checked by the SDK's schema) as a tool outcome. */
export function outcomeOfResult(result: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown }): ToolResult {
  const items = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  const blocks = items.map(blockOf).filter((block) => block.type !== 'text' || block.text !== '');
  if (result.structuredContent !== undefined) blocks.push({ type: 'text', text: `Structured content:\n${JSON.stringify(result.structuredContent, null, 2)}` });
  if (items.length === 0 && result.toolResult !== undefined) blocks.push({ type: 'text', text: JSON.stringify(result.toolResult) });
  const cut = capped(blocks);
  if (cut.dropped > 0) cut.blocks.push({ type: 'text', text: `(result cut: ${cut.dropped} more characters were dropped)` });
  if (cut.blocks.length === 0) cut.blocks.push({ type: 'text', text: '(the tool returned nothing)' });
  const isError = result.isError === true;
  const text = cut.blocks.map((block) => (block.type === 'text' ? block.text : '(image)')).join('\n');
  const onlyText = cut.blocks.every((block) => block.type === 'text');
  return { content: text, isError, ...(onlyText ? {} : { blocks: cut.blocks }) };
}
