// One answer as several platform messages, each within the platform's limit, cut where Markdown allows. Every
// platform uses this one splitter with its own profile (limit, how many parts, what a cut may not fall inside).

export interface SplitProfile {
  /** Characters (UTF-16 units, never fewer than the platforms count) per message. */
  limit: number;
  /** Beyond this many messages the rest is cut, and the last one ends with `cutNote`. */
  maxParts?: number;
  cutNote?: string;
  /** Tokens a cut inside a line must not fall into (e.g. Slack's `<url|label>` links and `&amp;` escapes). */
  keepTogether?: RegExp;
}

const FENCE = /^\s*```/;
const CLOSE = '```';
const isBlank = (line: string): boolean => line.trim() === '';

/** The lines of the message being filled, and the messages done. */
class Parts {
  readonly done: string[] = [];
  lines: string[] = [];
  size = 0;
  /** Index in `lines` of the last blank line outside code: the preferred place to cut. */
  lastBreak = -1;

  constructor(readonly limit: number) {}

  cost(line: string): number {
    return (this.lines.length > 0 ? 1 : 0) + line.length;
  }

  fits(length: number, reserve: number): boolean {
    return this.size + (this.lines.length > 0 ? 1 : 0) + length + reserve <= this.limit;
  }

  add(line: string): void {
    this.size += this.cost(line);
    this.lines.push(line);
  }

  /** Ends the message; inside a code block it is closed here and reopened (language kept) at the top of the next. */
  flush(fence?: string): void {
    if (fence !== undefined) this.add(CLOSE);
    while (this.lines.length > 0 && isBlank(this.lines[this.lines.length - 1] ?? '')) this.lines.pop();
    const text = this.lines.join('\n');
    // Platforms refuse an empty message, and a message of blank lines says nothing.
    if (!isBlank(text)) this.done.push(text);
    this.lines = [];
    this.size = 0;
    this.lastBreak = -1;
    if (fence !== undefined) this.add(fence);
  }

  /** Cuts at the last paragraph break when it lies in the second half: the lines after it start the next message. */
  flushAtBreak(): boolean {
    if (this.lastBreak <= this.lines.length / 2) return false;
    const moved = this.lines.slice(this.lastBreak + 1);
    this.lines = this.lines.slice(0, this.lastBreak);
    this.flush();
    for (const line of moved) this.add(line);
    return true;
  }
}

/** Where to cut a line that cannot fit: the last space in the second half of the room, else the room's end. */
function cutPoint(text: string, room: number, keepTogether: RegExp | undefined): number {
  if (text.length <= room) return text.length;
  const space = text.lastIndexOf(' ', room - 1);
  let cut = space > room / 2 ? space + 1 : room;
  if (keepTogether) {
    for (const match of text.matchAll(new RegExp(keepTogether.source, 'g'))) {
      const start = match.index ?? 0;
      if (start >= cut) break;
      if (start > 0 && start + match[0].length > cut) cut = start;
    }
  }
  // Never split a surrogate pair (an emoji would turn into two broken characters).
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff && cut > 1) cut -= 1;
  return Math.max(1, cut);
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
 * Splits Markdown into messages of at most `profile.limit` characters. Cuts fall at a paragraph break when one is
 * near, else at a line end; a code block that fits in one message moves whole to the next one; a code block cut
 * in two is closed with ``` and reopened with its opening fence. Only a line longer than a message is cut inside,
 * at a space when there is one, never inside a `keepTogether` token or a surrogate pair. Blank lines at a cut
 * are dropped: each message stands on its own.
 */
export function splitMessage(text: string, profile: SplitProfile): string[] {
  const { limit, keepTogether } = profile;
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const parts = new Parts(limit);
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] ?? '';
    const isFence = FENCE.test(line);
    const opens = isFence && fence === undefined;
    const after = opens ? line.trim() : isFence ? undefined : fence;
    if (opens && parts.lines.length > 0) {
      const block = blockLength(lines, index);
      if (block <= limit && !parts.fits(block, 0)) {
        if (!parts.flushAtBreak()) parts.flush();
      }
    }
    const reserve = after === undefined ? 0 : 1 + CLOSE.length;
    if (!parts.fits(line.length, reserve)) {
      const onlyReopened = fence !== undefined && parts.lines.length === 1;
      if (parts.lines.length > 0 && !onlyReopened && !(fence === undefined && parts.flushAtBreak() && parts.fits(line.length, reserve))) {
        parts.flush(fence);
      }
      while (!parts.fits(line.length, reserve)) {
        const room = Math.max(1, parts.limit - parts.size - (parts.lines.length > 0 ? 1 : 0) - reserve);
        const cut = cutPoint(line, room, keepTogether);
        parts.add(line.slice(0, cut));
        parts.flush(fence);
        line = line.slice(cut);
      }
    }
    if (parts.lines.length === 0 && fence === undefined && isBlank(line)) continue;
    if (fence === undefined && !isFence && isBlank(line)) parts.lastBreak = parts.lines.length;
    parts.add(line);
    fence = after;
  }
  parts.flush();
  return capParts(parts.done, profile);
}

/** Keeps at most `maxParts` messages; the last one then ends with the profile's note that the rest was cut. */
function capParts(parts: string[], profile: SplitProfile): string[] {
  const { maxParts, cutNote = '(The answer was longer than this platform allows; the rest was cut.)' } = profile;
  if (maxParts === undefined || parts.length <= maxParts) return parts;
  const last = parts[maxParts - 1] ?? '';
  const room = profile.limit - cutNote.length - CLOSE.length - 2;
  const head = last.length > room ? last.slice(0, cutPoint(last, room, profile.keepTogether)) : last;
  const open = head.split('\n').filter((line) => FENCE.test(line)).length % 2 === 1;
  return [...parts.slice(0, maxParts - 1), `${head}${open ? `\n${CLOSE}` : ''}\n${cutNote}`];
}
