// Discord refuses a message over 2,000 characters: long answers go out as several, cut where Markdown allows.

export const DISCORD_MESSAGE_LIMIT = 2000;

const FENCE = /^\s*```/;
const CLOSE = '```';

/** The lines of the chunk being filled, and the chunks done. */
class Chunks {
  readonly done: string[] = [];
  lines: string[] = [];
  size = 0;

  constructor(readonly limit: number) {}

  cost(line: string): number {
    return (this.lines.length > 0 ? 1 : 0) + line.length;
  }

  fits(line: string, reserve: number): boolean {
    return this.size + this.cost(line) + reserve <= this.limit;
  }

  add(line: string): void {
    this.size += this.cost(line);
    this.lines.push(line);
  }

  /** Ends the chunk; inside a code block it is closed here and reopened at the top of the next chunk. */
  flush(fence?: string): void {
    if (fence !== undefined) this.add(CLOSE);
    const text = this.lines.join('\n');
    // Discord refuses an empty message, and a chunk of blank lines says nothing.
    if (text.trim() !== '') this.done.push(text);
    this.lines = [];
    this.size = 0;
    if (fence !== undefined) this.add(fence);
  }
}

/** Where to cut a line that cannot fit: the last space in the second half of the room, else the room's end. */
function cutPoint(text: string, room: number): number {
  if (text.length <= room) return text.length;
  const space = text.lastIndexOf(' ', room - 1);
  let cut = space > room / 2 ? space + 1 : room;
  // Never split a surrogate pair (an emoji would turn into two broken characters).
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff && cut > 1) cut -= 1;
  return cut;
}

/** Length of the code block opening at `start` (through its closing fence, or to the end when unterminated). */
function blockLength(lines: string[], start: number): number {
  let length = lines[start]?.length ?? 0;
  for (let index = start + 1; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    length += 1 + line.length;
    if (FENCE.test(line)) break;
  }
  return length;
}

/**
 * Splits Markdown into messages of at most `limit` characters (UTF-16 units, never fewer than Discord counts).
 * Cuts fall on line ends; a code block that fits in one message is moved whole to the next one; a code block cut
 * in two is closed with ``` and reopened with its opening fence (language kept). Only a single line longer than a
 * message is cut inside, at a space when there is one.
 */
export function splitMessage(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const chunks = new Chunks(limit);
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] ?? '';
    const isFence = FENCE.test(line);
    const opens = isFence && fence === undefined;
    const after = opens ? line.trim() : isFence ? undefined : fence;
    if (opens && chunks.lines.length > 0) {
      const block = blockLength(lines, index);
      if (block <= limit && !chunks.fits('x'.repeat(block), 0)) chunks.flush();
    }
    const reserve = after === undefined ? 0 : 1 + CLOSE.length;
    if (!chunks.fits(line, reserve)) {
      const onlyReopened = fence !== undefined && chunks.lines.length === 1;
      if (chunks.lines.length > 0 && !onlyReopened) chunks.flush(fence);
      while (!chunks.fits(line, reserve)) {
        const room = Math.max(1, chunks.limit - chunks.size - (chunks.lines.length > 0 ? 1 : 0) - reserve);
        const cut = cutPoint(line, room);
        chunks.add(line.slice(0, cut));
        chunks.flush(fence);
        line = line.slice(cut);
      }
    }
    chunks.add(line);
    fence = after;
  }
  chunks.flush();
  return chunks.done;
}
