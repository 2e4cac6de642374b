/**
 * JSON with object keys sorted at every level, so that two blocks that mean the same thing serialise to
 * the same bytes whatever order their keys were built in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** A deterministic stand-in for the tokenizer: about four characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
