// A server's resources and prompts, asked for outside a tool call: one resource read (its text bounded in bytes and
// stripped of hidden characters, as tool results are; binary handed back as bytes for the caller to save or share),
// and a prompt's messages as the words of a turn. Either only of a server the world may use (mcpTools.ts reaches it).
import type { Client } from '@modelcontextprotocol/client';
import { stripHidden } from '../text/hidden.ts';

/** Bytes of a text resource the model reads (as a tool result keeps 64 KiB). */
export const MAX_RESOURCE_TEXT_BYTES = 64 * 1024;
/** Bytes of a binary resource saved or shared (its base64 is bounded by the connection's 4 MiB a message). */
const MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

export type ResourceRead =
  | { ok: true; uri: string; name: string; mimeType?: string; text: string; cutBytes: number; hiddenRemoved: number }
  | { ok: true; uri: string; name: string; mimeType?: string; bytes: Uint8Array }
  | { ok: false; why: string };

/** A file name for the resource: its URI's last path segment, in characters every file system and platform takes. */
export function resourceFileName(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '').replace(/\/+$/, '');
  const last = decodeSafely(path.slice(path.lastIndexOf('/') + 1)).replace(/^[a-z][a-z0-9+.-]*:/i, '');
  const clean = last.replace(/[^\w.\- ]+/g, '_').replace(/^[.\s]+/, '').slice(0, 120);
  return clean === '' ? 'resource' : clean;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `text` cut to at most `max` bytes of UTF-8 at a character boundary, and how many bytes were cut. */
function cutToBytes(text: string, max: number): { text: string; cutBytes: number } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= max) return { text, cutBytes: 0 };
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), cutBytes: bytes.byteLength - end };
}

/** Reads one resource: its first content (a text, or a blob), bounded. */
export async function readResource(client: Client, server: string, uri: string, timeoutMs: number): Promise<ResourceRead> {
  if (client.getServerCapabilities()?.resources === undefined) return { ok: false, why: `the MCP server ${server} offers no resources` };
  let result;
  try {
    result = await client.readResource({ uri }, { timeout: timeoutMs });
  } catch (error) {
    return { ok: false, why: `the MCP server ${server} could not read ${uri}: ${oneLineOf(error)}` };
  }
  const [first] = result.contents;
  if (first === undefined) return { ok: false, why: `the MCP server ${server} returned nothing for ${uri}` };
  const name = resourceFileName(first.uri || uri);
  const mimeType = first.mimeType;
  if ('text' in first && typeof first.text === 'string') {
    const stripped = stripHidden(first.text);
    const cut = cutToBytes(stripped.text, MAX_RESOURCE_TEXT_BYTES);
    return { ok: true, uri, name, ...(mimeType === undefined ? {} : { mimeType }), text: cut.text, cutBytes: cut.cutBytes, hiddenRemoved: stripped.removed };
  }
  const blob = 'blob' in first && typeof first.blob === 'string' ? first.blob : '';
  const bytes = Buffer.from(blob, 'base64');
  if (bytes.byteLength > MAX_RESOURCE_BYTES) return { ok: false, why: `${uri} is ${bytes.byteLength} bytes, over the ${MAX_RESOURCE_BYTES / (1024 * 1024)} MiB a resource may be` };
  return { ok: true, uri, name, ...(mimeType === undefined ? {} : { mimeType }), bytes };
}

const oneLineOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, 300);

export type PromptRun = { ok: true; text: string; hiddenRemoved: number } | { ok: false; why: string };

/**
 * Runs a server's prompt: its declared arguments checked first (a missing required one named), then its messages as
 * one turn's words, naming the prompt (the person's own words in a thread, with where they came from said).
 */
export async function runPrompt(client: Client, server: string, name: string, args: Record<string, string>, timeoutMs: number): Promise<PromptRun> {
  if (client.getServerCapabilities()?.prompts === undefined) return { ok: false, why: `the MCP server ${server} offers no prompts` };
  let declared;
  try {
    declared = (await client.listPrompts({}, { timeout: timeoutMs })).prompts;
  } catch (error) {
    return { ok: false, why: `the MCP server ${server} could not list its prompts: ${oneLineOf(error)}` };
  }
  const prompt = declared.find((each) => each.name === name);
  if (prompt === undefined) return { ok: false, why: `the MCP server ${server} has no prompt "${name.slice(0, 100)}" (prompts: ${declared.map((each) => each.name).join(', ') || 'none'})` };
  const known = prompt.arguments ?? [];
  const missing = known.filter((argument) => argument.required === true && args[argument.name] === undefined).map((argument) => argument.name);
  if (missing.length > 0) return { ok: false, why: `the prompt ${server}/${name} needs ${missing.map((each) => `${each}=…`).join(' ')}` };
  const unknown = Object.keys(args).filter((key) => !known.some((argument) => argument.name === key));
  if (unknown.length > 0) return { ok: false, why: `the prompt ${server}/${name} takes no ${unknown.join(', ')} (it takes: ${known.map((argument) => argument.name).join(', ') || 'nothing'})` };
  let result;
  try {
    result = await client.getPrompt({ name, arguments: args }, { timeout: timeoutMs });
  } catch (error) {
    return { ok: false, why: `the MCP server ${server} could not run its prompt ${name}: ${oneLineOf(error)}` };
  }
  const parts = result.messages.map((message) => {
    const content = message.content as { type: string; text?: string; resource?: { uri?: string; text?: string } };
    const text = content.type === 'text' ? (content.text ?? '') : content.type === 'resource' ? `Resource ${content.resource?.uri ?? '?'}:\n${content.resource?.text ?? '(binary, not included)'}` : `(${content.type} content, not included)`;
    return message.role === 'user' ? text : `(${message.role}) ${text}`;
  });
  const stripped = stripHidden(parts.join('\n\n'));
  const cut = cutToBytes(stripped.text, MAX_RESOURCE_TEXT_BYTES);
  return { ok: true, text: `(the prompt ${name} of the MCP server ${server})\n\n${cut.text}`, hiddenRemoved: stripped.removed };
}

/** `NAME=VALUE NAME="a value with spaces"` as a prompt's arguments; anything else is a one-line error. */
export function promptArguments(text: string): { ok: true; args: Record<string, string> } | { ok: false; why: string } {
  const args: Record<string, string> = {};
  const word = /\s*([A-Za-z_][\w-]*)=(?:"([^"]*)"|(\S*))/y;
  let rest = text.trim();
  while (rest !== '') {
    word.lastIndex = 0;
    const match = word.exec(rest);
    if (match === null) return { ok: false, why: `"${rest.slice(0, 60)}" is not NAME=VALUE (a prompt's arguments are NAME=VALUE, a value with spaces in "quotes")` };
    args[match[1]!] = match[2] ?? match[3] ?? '';
    rest = rest.slice(word.lastIndex).trim();
  }
  return { ok: true, args };
}
