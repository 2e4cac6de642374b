// The files of a message as model input: images and PDFs as their own blocks, text as text, the rest as a note.
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { extname } from 'node:path';
import type { FileLimits } from '../config/config.ts';
import type { MessageFile } from '../platform/port.ts';
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import type { ChatWorkspace } from '../workspace/chatWorkspaces.ts';
import { placeSharedFiles } from '../workspace/sharedFiles.ts';
import { visible } from '../text/visible.ts';

/** A file of the turn, downloaded: the model sees it, and it is in the chat's workspace under `name`. */
export interface InputFile {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
}

export interface NotRead {
  name: string;
  reason: string;
}

export interface LoadedFiles {
  files: InputFile[];
  notRead: NotRead[];
}

export type FileFetcher = (file: MessageFile) => Promise<Uint8Array>;

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const TEXT_EXTENSIONS = new Set([
  '.txt', '.md', '.markdown', '.csv', '.tsv', '.json', '.jsonl', '.yaml', '.yml', '.toml', '.ini', '.xml', '.html', '.htm', '.css',
  '.log', '.sql', '.js', '.mjs', '.ts', '.tsx', '.jsx', '.py', '.rb', '.go', '.rs', '.java', '.kt', '.c', '.h', '.cpp', '.hpp',
  '.cs', '.php', '.sh', '.bash', '.swift', '.r', '.lua', '.pl', '.diff', '.patch', '.env', '.cfg', '.conf',
]);
const TEXT_TYPES = /^(text\/|application\/(json|x-ndjson|xml|yaml|x-yaml|toml|javascript|x-sh|sql|x-python))/;
/** Text beyond this many characters is cut (the whole file still reaches scripts). */
const MAX_TEXT_CHARS = 100_000;

/** A size as people read it: 812 B, 12.4 KB, 3.1 MB. */
export function describeSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A file name safe to show and to write into a folder: its last path part, no control characters, every invisible
 * or reordering character (bidi controls, zero-width) spelled out as `<U+202E>`, and at most 255 bytes (what a
 * file system takes), cut at a character boundary with its extension kept.
 */
export function safeFileName(name: string, fallback = 'file'): string {
  const base = [...(name.split(/[\\/]/).pop() ?? '')]
    .filter((char) => char.charCodeAt(0) >= 0x20 && char.charCodeAt(0) !== 0x7f && !'"<>'.includes(char))
    .join('')
    .trim();
  return base === '' || base === '.' || base === '..' ? fallback : fitName(visible(base));
}

/** The longest name a file system takes, in bytes. */
export const NAME_MAX_BYTES = 255;

/** `name` within `max` bytes of UTF-8, its stem cut at a character boundary and its (short) extension kept. */
export function fitName(name: string, max = NAME_MAX_BYTES): string {
  if (Buffer.byteLength(name) <= max) return name;
  const ext = extname(name);
  const keep = Buffer.byteLength(ext) <= 32 ? ext : '';
  let stem = '';
  const room = max - Buffer.byteLength(keep);
  for (const char of name.slice(0, name.length - keep.length)) {
    if (Buffer.byteLength(stem + char) > room) break;
    stem += char;
  }
  return `${stem}${keep}`;
}

/** The API refuses larger images; a PDF counts against the 32 MB request. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** Text of all files of one message, at most (the rest is cut; scripts still get whole files). */
const MAX_TOTAL_TEXT_CHARS = 150_000;

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
type FileKind = { kind: 'image'; mediaType: ImageType } | { kind: 'pdf' } | { kind: 'text' } | { kind: 'other'; why?: string };

/** What the bytes are, by their first bytes: a declared type that lies would make the API refuse the turn. */
export function sniffImage(bytes: Uint8Array): ImageType | undefined {
  const head = Buffer.from(bytes.subarray(0, 12));
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

function kindOf(file: InputFile): FileKind {
  const type = file.mimeType.toLowerCase().split(';')[0]?.trim() ?? '';
  const image = sniffImage(file.bytes);
  if (image !== undefined || IMAGE_TYPES.has(type)) {
    if (image === undefined) return { kind: 'other', why: 'its content is not the image its type says' };
    if (file.bytes.byteLength > MAX_IMAGE_BYTES) return { kind: 'other', why: `images over ${describeSize(MAX_IMAGE_BYTES)} cannot be shown to Claude` };
    return { kind: 'image', mediaType: image };
  }
  if (type === 'application/pdf' || extname(file.name).toLowerCase() === '.pdf') {
    if (Buffer.from(file.bytes.subarray(0, 5)).toString('latin1') !== '%PDF-') return { kind: 'other', why: 'its content is not a PDF' };
    if (file.bytes.byteLength > MAX_PDF_BYTES) return { kind: 'other', why: `PDFs over ${describeSize(MAX_PDF_BYTES)} cannot be shown to Claude` };
    return { kind: 'pdf' };
  }
  if (TEXT_TYPES.test(type) || TEXT_EXTENSIONS.has(extname(file.name).toLowerCase())) return looksLikeText(file.bytes) ? { kind: 'text' } : { kind: 'other' };
  return { kind: 'other' };
}

function looksLikeText(bytes: Uint8Array): boolean {
  return !bytes.subarray(0, 8192).includes(0);
}

/**
 * Downloads the message's files within the bounds. Files over a bound, or that cannot be fetched, are named
 * in `notRead` with the reason, for the person and the model.
 */
export async function loadMessageFiles(list: readonly MessageFile[], fetch: FileFetcher | undefined, limits: FileLimits): Promise<LoadedFiles> {
  const loaded: LoadedFiles = { files: [], notRead: [] };
  for (const [index, file] of list.entries()) {
    const name = safeFileName(file.name, `file-${index + 1}`);
    if (index >= limits.maxPerMessage) {
      loaded.notRead.push({ name, reason: `only the first ${limits.maxPerMessage} files of a message are read` });
      continue;
    }
    if (file.size > limits.maxBytes) {
      loaded.notRead.push({ name, reason: `it is ${describeSize(file.size)}, over the ${describeSize(limits.maxBytes)} limit` });
      continue;
    }
    if (!fetch) {
      loaded.notRead.push({ name, reason: 'files cannot be fetched on this surface' });
      continue;
    }
    try {
      const bytes = await fetch(file);
      if (bytes.byteLength > limits.maxBytes) {
        loaded.notRead.push({ name, reason: `it is ${describeSize(bytes.byteLength)}, over the ${describeSize(limits.maxBytes)} limit` });
        continue;
      }
      loaded.files.push({ name: uniqueName(name, loaded.files), mimeType: file.mimeType, bytes });
    } catch (error) {
      loaded.notRead.push({ name, reason: `it could not be downloaded (${(error as Error).message})` });
    }
  }
  return loaded;
}

/** `name`, or `name-2.ext`, `name-3.ext`… when a file of the list already has it. */
export function uniqueName(name: string, taken: readonly { name: string }[]): string {
  if (!taken.some((file) => file.name === name)) return name;
  const ext = extname(name);
  for (let n = 2; ; n += 1) {
    const candidate = `${fitName(name.slice(0, name.length - ext.length), NAME_MAX_BYTES - Buffer.byteLength(`-${n}${ext}`))}-${n}${ext}`;
    if (!taken.some((file) => file.name === candidate)) return candidate;
  }
}

const header = (file: InputFile, kind: string) => `[${kind} attached by the person: ${file.name} (${file.mimeType || 'unknown type'}, ${describeSize(file.bytes.byteLength)})]`;

/** The contract's line for a shared file: where it is in the workspace, its type and size. */
export const fileLine = (file: InputFile): string => `File: ${SANDBOX_PATHS.workspace}/${file.name} (${file.mimeType || 'unknown type'}, ${describeSize(file.bytes.byteLength)})`;

/** The blocks the model reads for the files, before the message's text: first where each is, then its content. */
export function fileBlocks(loaded: LoadedFiles): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = loaded.files.length === 0 ? [] : [{ type: 'text', text: loaded.files.map(fileLine).join('\n') }];
  let textLeft = MAX_TOTAL_TEXT_CHARS;
  for (const file of loaded.files) {
    const kind = kindOf(file);
    const data = () => Buffer.from(file.bytes).toString('base64');
    if (kind.kind === 'image') {
      blocks.push({ type: 'text', text: header(file, 'Image') }, { type: 'image', source: { type: 'base64', media_type: kind.mediaType, data: data() } });
    } else if (kind.kind === 'pdf') {
      blocks.push({ type: 'document', title: file.name, source: { type: 'base64', media_type: 'application/pdf', data: data() } });
    } else if (kind.kind === 'text') {
      const text = Buffer.from(file.bytes).toString('utf8');
      const room = Math.min(MAX_TEXT_CHARS, textLeft);
      const cut = text.length > room ? `${text.slice(0, room)}\n[… cut: ${text.length - room} more characters; the whole file is at ${SANDBOX_PATHS.workspace}/${file.name}]` : text;
      textLeft -= Math.min(text.length, room);
      blocks.push({ type: 'text', text: `${header(file, 'File')}\n${cut}` });
    } else {
      const why = kind.why ?? 'not readable as text here';
      blocks.push({ type: 'text', text: `${header(file, 'File')} (${why}; it is at ${SANDBOX_PATHS.workspace}/${file.name} for scripts and the shell)` });
    }
  }
  for (const file of loaded.notRead) blocks.push({ type: 'text', text: `[File not read: ${file.name}: ${file.reason}.]` });
  return blocks;
}

/**
 * What the history keeps of the files: images and PDFs become a one-line note (their bytes would crowd out the
 * conversation), text stays.
 */
export function historyFileBlocks(blocks: readonly ContentBlockParam[]): ContentBlockParam[] {
  return blocks.map((block): ContentBlockParam => {
    if (block.type === 'image') return { type: 'text', text: '[The image was shown in this turn.]' };
    if (block.type === 'document') return { type: 'text', text: `[The PDF ${block.title ?? ''} was shown in this turn.]` };
    return block;
  });
}

/** The turn's messages as the history keeps them: images in tool results (the editor's, an MCP tool's) become the same note. */
export function historyToolImages(messages: readonly MessageParam[]): MessageParam[] {
  const seen = (part: { type: string }) => part.type === 'image';
  return messages.map((message) => {
    if (message.role !== 'user' || !Array.isArray(message.content)) return message;
    const blocks = message.content as ContentBlockParam[];
    if (!blocks.some((block) => block.type === 'tool_result' && Array.isArray(block.content) && block.content.some(seen))) return message;
    const content = blocks.map((block) =>
      block.type === 'tool_result' && Array.isArray(block.content)
        ? { ...block, content: block.content.map((part) => (seen(part) ? { type: 'text' as const, text: '[The image was shown in this turn.]' } : part)) }
        : block,
    );
    return { ...message, content };
  });
}

/** What the person is told about files that were not read. */
export function notReadNotice(notRead: readonly NotRead[]): string | undefined {
  if (notRead.length === 0) return undefined;
  return notRead.map((file) => `_I did not read ${file.name}: ${file.reason}._`).join('\n');
}

/**
 * The message's files as they are in the workspace: under the name each got there (a clash is renamed), and the
 * ones that did not fit its bounds named as not read.
 */
export async function placeInWorkspace(workspace: ChatWorkspace, fetched: LoadedFiles): Promise<LoadedFiles> {
  const placements = await placeSharedFiles(workspace, fetched.files);
  const files: InputFile[] = [];
  const notRead: NotRead[] = [...fetched.notRead];
  for (const [index, placement] of placements.entries()) {
    const file = fetched.files[index] as InputFile;
    if ('placedAs' in placement) files.push({ ...file, name: placement.placedAs });
    else notRead.push({ name: file.name, reason: placement.notPlaced });
  }
  return { files, notRead };
}
