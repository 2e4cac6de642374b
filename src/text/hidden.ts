// Characters that carry text a person never sees but a model reads: Unicode tags (U+E0000-U+E007F, the "ASCII
// smuggling" of prompt injections), zero-width characters and bidi controls. Removed from what MCP servers say
// (tool descriptions, titles, schemas, results) before the model sees it; visible.ts names them on cards instead.
const HIDDEN = /[\u{E0000}-\u{E007F}\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u061C\u180E]/gu;

/** `text` without hidden characters, and how many there were. */
export function stripHidden(text: string): { text: string; removed: number } {
  let removed = 0;
  const stripped = text.replace(HIDDEN, () => {
    removed += 1;
    return '';
  });
  return { text: removed === 0 ? text : stripped, removed };
}

/** A JSON value with every string in it (keys too) stripped, and the count. */
export function stripHiddenDeep<T>(value: T): { value: T; removed: number } {
  let removed = 0;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') {
      const stripped = stripHidden(item);
      removed += stripped.removed;
      return stripped.text;
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, inner]) => [walk(key) as string, walk(inner)]));
    return item;
  };
  const out = walk(value) as T;
  return { value: removed === 0 ? value : out, removed };
}
