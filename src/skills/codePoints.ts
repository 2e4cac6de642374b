// Lengths as the Agent Skills specification counts them: in Unicode code points, not UTF-16 units.

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
