// Deciding whether bytes are text, and cutting text to a size without splitting a character.

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** UTF-8 text of `bytes`, or undefined when they hold a NUL byte or are not valid UTF-8 (binary). */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The text of at most `maxBytes` leading bytes of `bytes`, cut on a character boundary; undefined for binary.
 * `truncated` tells whether anything was cut.
 */
export function decodeTextPrefix(bytes: Uint8Array, maxBytes: number): { text: string; truncated: boolean } | undefined {
  if (bytes.length <= maxBytes) {
    const text = decodeText(bytes);
    return text === undefined ? undefined : { text, truncated: false };
  }
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so the cut falls before a character's first byte.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  const text = decodeText(bytes.subarray(0, end));
  return text === undefined ? undefined : { text, truncated: true };
}

/** Number of Unicode code points (what the Agent Skills limits count). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    // A surrogate pair is one code point.
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i += 1;
    n += 1;
  }
  return n;
}
