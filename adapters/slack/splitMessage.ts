// Long answers as several Slack messages, each under the limit, code blocks closed and reopened across a cut.

/** Slack asks for at most 4,000 characters of `text` per message; this leaves room for the fences we add. */
export const SLACK_TEXT_LIMIT = 3900;
/** Beyond this many messages the rest is cut (Slack truncates a single message at 40,000 anyway). */
export const MAX_PARTS = 10;

const FENCE = '```';
export const CUT_NOTE = '_(The answer was longer than Slack allows; the rest was cut.)_';

/** Where a too-long line may be cut: at a space, never inside `&amp;` or a `<url|label>` link, nor a surrogate pair. */
function cutPoint(line: string, max: number): number {
  const space = line.lastIndexOf(' ', max - 1);
  let cut = space > max / 2 ? space + 1 : max;
  const open = line.lastIndexOf('<', cut - 1);
  if (open > 0 && line.lastIndexOf('>', cut - 1) < open) cut = open;
  const amp = line.lastIndexOf('&', cut - 1);
  if (amp > 0 && cut - amp < 8 && !line.slice(amp, cut).includes(';')) cut = amp;
  const code = line.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return Math.max(1, cut);
}

function cutLine(line: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const cut = cutPoint(rest, max);
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

const isFence = (line: string): boolean => line.startsWith(FENCE);

/**
 * Splits mrkdwn into messages of at most `limit` characters. Cuts fall between paragraphs when one is near,
 * else between lines, else at a space; a code block cut in two is closed and reopened so both halves render.
 */
export function splitMrkdwn(text: string, limit = SLACK_TEXT_LIMIT, maxParts = MAX_PARTS): string[] {
  if (text.length <= limit) return [text];
  const budget = limit - (FENCE.length + 1) * 2;
  const parts: string[] = [];
  let current: string[] = [];
  let size = 0;
  let inCode = false;
  /** Index in `current` of the last blank line outside code: the preferred place to cut. */
  let lastBreak = -1;

  const flush = (keep: string[]): void => {
    const body = current.join('\n').replace(/\n+$/, '');
    if (body.trim() !== '') parts.push(inCode && keep.length === 0 ? `${body}\n${FENCE}` : body);
    current = keep;
    size = keep.reduce((sum, line) => sum + line.length + 1, 0);
    lastBreak = -1;
  };

  for (const line of text.split('\n')) {
    for (const piece of cutLine(line, budget)) {
      // A closing fence always fits: the budget keeps room for it.
      if (size + piece.length + 1 > budget && current.length > 0 && !(inCode && isFence(piece))) {
        if (lastBreak > current.length / 2) {
          // Cut at the paragraph break: the lines after it move on (they started outside code).
          const moved = current.slice(lastBreak + 1);
          current = current.slice(0, lastBreak);
          flush(moved);
        } else {
          const reopen = inCode;
          flush([]);
          if (reopen) {
            current = [FENCE];
            size = FENCE.length + 1;
          }
        }
      }
      if (isFence(piece)) inCode = !inCode;
      else if (!inCode && piece.trim() === '') lastBreak = current.length;
      current.push(piece);
      size += piece.length + 1;
    }
  }
  flush([]);
  if (parts.length <= maxParts) return parts;
  return [...parts.slice(0, maxParts - 1), withCutNote(parts[maxParts - 1] ?? '', limit)];
}

function withCutNote(part: string, limit: number): string {
  const room = limit - CUT_NOTE.length - FENCE.length - 2;
  const head = part.length > room ? part.slice(0, cutPoint(part, room)) : part;
  const open = head.split('\n').filter(isFence).length % 2 === 1;
  return `${head}${open ? `\n${FENCE}` : ''}\n${CUT_NOTE}`;
}
