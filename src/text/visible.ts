// Showing people exactly what will run. A skill id, a script path or an argument may hold characters that
// render as nothing or reorder what is around them (U+200B, U+2060, U+00AD, U+061C, bidi controls, line
// separators): `--dry<U+200B>-run` must not look like `--dry-run` on a card. Slack, Discord and the terminal
// all show these through visible(), so the three agree.

/**
 * Control characters (Cc), format characters (Cf: zero-width, soft hyphen, bidi controls, tags), line and
 * paragraph separators (Zl, Zp), lone surrogates, private-use and unassigned code points...
 */
const INVISIBLE_CATEGORY = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]$/u;
/** ...spaces other than U+0020 (NBSP and friends look like an argument break)... */
const OTHER_SPACE = /^\p{Zs}$/u;
/** ...and the invisible fillers and selectors Unicode does not class as format characters. */
const INVISIBLE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x034f, 0x034f], // combining grapheme joiner
  [0x115f, 0x1160], // Hangul fillers
  [0x17b4, 0x17b5], // Khmer inherent vowels
  [0x180b, 0x180f], // Mongolian variation selectors
  [0x2800, 0x2800], // braille blank
  [0x3164, 0x3164], // Hangul filler
  [0xfe00, 0xfe0f], // variation selectors
  [0xffa0, 0xffa0], // halfwidth Hangul filler
  [0xe0100, 0xe01ef], // variation selectors supplement
];
/** Nothing to escape: the common case, checked once. */
const PLAIN = /^[\x20-\x7e]*$/;

function isInvisible(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  if (code === 0x20) return false;
  return INVISIBLE_CATEGORY.test(char) || OTHER_SPACE.test(char) || INVISIBLE_RANGES.some(([low, high]) => code >= low && code <= high);
}

/** `<U+200B>`: the code point, named. */
export function codePointName(char: string): string {
  return `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** `text` with every invisible or formatting character replaced by its visible name, e.g. `<U+200B>`. */
export function visible(text: string): string {
  if (PLAIN.test(text)) return text;
  let out = '';
  for (const char of text) out += isInvisible(char) ? codePointName(char) : char;
  return out;
}

/** Characters that drive a terminal: C0 controls but tab and newline, DEL, and the C1 controls (CSI, OSC…). */
function drivesTerminal(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
}

/**
 * Text from the model (or a script) made safe to print on a terminal: ESC, CSI, OSC and every other control
 * that could move the cursor, recolour, retitle or rewrite what is on screen is shown as `<U+001B>` instead.
 */
export function terminalSafe(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (!drivesTerminal(code)) continue;
    out += `${text.slice(from, i)}${codePointName(text[i] ?? '')}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
